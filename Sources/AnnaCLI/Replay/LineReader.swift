import CoreJS
import Foundation

/// Reads a file (or standard input, as lines arrive) one line at a time, and tells whether
/// the next line is there without waiting: a replay sends what it has on before it waits.
final class LineReader {
    /// How the input is named in messages: the path, or `<stdin>`.
    let name: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// Bytes read and not yet returned are `buffer[start..<end]`; `buffer[start..<scanned]`
    /// holds no line break.
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0, scanned = 0, end = 0
    private var reachedEnd = false
    /// Whether no line was returned yet: the first may open with a byte order mark, dropped.
    private var atStart = true

    /// Opens `path`, or standard input for `-`; `nil` when the file cannot be opened.
    init?(path: String) {
        if path == "-" {
            name = "<stdin>"
            descriptor = STDIN_FILENO
            ownsDescriptor = false
        } else {
            guard LocalFileAccess().isFile(atPath: path) else { return nil }
            let opened = open(path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else { return nil }
            name = path
            descriptor = opened
            ownsDescriptor = true
        }
        buffer = .allocate(byteCount: 1 << 16, alignment: 1)
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { close(descriptor) }
    }

    /// The next line without its line break (and trailing carriage returns), or `nil` at the
    /// end; the first without a UTF-8 byte order mark.
    func nextLine() -> String? {
        withNextLine { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the next line's bytes, as ``nextLine()`` cuts it (valid only during
    /// the call), and returns what it returns; `nil` at the end. No `String` is made.
    func withNextLine<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result? {
        while true {
            if let lineBreak = nextLineBreak() { return try body(take(upTo: lineBreak, skipping: 1)) }
            if reachedEnd { return start < end ? try body(take(upTo: end, skipping: 0)) : nil }
            fill()
        }
    }

    /// Whether ``nextLine()`` can return without waiting for input (a whole line is read or
    /// can be read at once, or the input ended).
    var hasLineReady: Bool {
        while !reachedEnd, nextLineBreak() == nil {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 0) > 0 else { return false }
            fill()
        }
        return true
    }

    /// The offset of the next line break in the buffer, scanning each byte once.
    private func nextLineBreak() -> Int? {
        guard scanned < end, let base = buffer.baseAddress,
            let found = memchr(base + scanned, 0x0A, end - scanned)
        else {
            scanned = end
            return nil
        }
        scanned = base.distance(to: found)
        return scanned
    }

    /// The bytes from `start` to `lineEnd` without trailing carriage returns (valid until the
    /// buffer is next filled); the next line starts `skipping` bytes after `lineEnd`.
    private func take(upTo lineEnd: Int, skipping: Int) -> UnsafeRawBufferPointer {
        var textStart = start
        if atStart {
            atStart = false
            if lineEnd - start >= 3, buffer[start] == 0xEF, buffer[start + 1] == 0xBB, buffer[start + 2] == 0xBF { textStart += 3 }
        }
        var textEnd = lineEnd
        while textEnd > textStart, buffer[textEnd - 1] == 0x0D { textEnd -= 1 }
        start = lineEnd + skipping
        scanned = start
        return UnsafeRawBufferPointer(rebasing: buffer[textStart..<textEnd])
    }

    /// Reads more input after what is buffered (moving it to the front, or growing the
    /// buffer for a long line); a read error counts as the end.
    private func fill() {
        if start > 0 {
            let pending = end - start
            if pending > 0, let base = buffer.baseAddress { memmove(base, base + start, pending) }
            scanned -= start
            end = pending
            start = 0
        }
        if end == buffer.count {
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 1)
            larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[..<end]))
            buffer.deallocate()
            buffer = larger
        }
        guard let base = buffer.baseAddress else {
            reachedEnd = true
            return
        }
        var count: Int
        repeat { count = read(descriptor, base + end, buffer.count - end) } while count < 0 && errno == EINTR
        if count > 0 { end += count } else { reachedEnd = true }
    }
}
