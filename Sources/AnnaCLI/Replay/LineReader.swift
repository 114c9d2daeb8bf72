import CoreJS
import Foundation

/// Reads a file (or standard input, as lines arrive) one line at a time, and tells whether
/// the next line is there without waiting: a replay sends what it has on before it waits.
///
/// A line holds at most ``maximumLineBytes`` bytes before its line break (16 MiB unless
/// `ANNA_MAX_LINE_BYTES` says otherwise), so a file without line breaks cannot grow the buffer
/// without bound: past it, and on a read error, the reader stops, ``failure`` says why and at
/// which line, and ``withNextLine(_:)`` returns `nil` from then on.
final class LineReader {
    /// The environment variable that sets ``maximumLineBytes`` (a number of bytes).
    static let maximumLineBytesVariable = "ANNA_MAX_LINE_BYTES"
    /// The longest line by default: 16 MiB.
    static let defaultMaximumLineBytes = 16 << 20
    /// The longest line a reader accepts: `ANNA_MAX_LINE_BYTES`, or 16 MiB (with one warning
    /// on standard error when the variable is not a whole number from 1 to 2^40).
    static let maximumLineBytes: Int = {
        guard let text = ProcessInfo.processInfo.environment[maximumLineBytesVariable] else { return defaultMaximumLineBytes }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value > 0, value <= 1 << 40 else {
            printError(
                "anna: $\(maximumLineBytesVariable) is '\(text)', not a number of bytes from 1 to \(1 << 40); "
                    + "lines may have up to \(defaultMaximumLineBytes) bytes")
            return defaultMaximumLineBytes
        }
        return value
    }()

    /// How the input is named in messages: the path, or `<stdin>`.
    let name: String
    /// Why the reader stopped before the end of its input, or `nil`. A failure nobody asked
    /// about is printed on standard error when the reader goes away, so it is never lost.
    var failure: LineReaderError? {
        failureSeen = true
        return storedFailure
    }
    private var storedFailure: LineReaderError?
    private var failureSeen = false
    /// The longest line this reader accepts, in bytes before the line break.
    let maximumLineBytes: Int
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// Bytes read and not yet returned are `buffer[start..<end]`; `buffer[start..<scanned]`
    /// holds no line break.
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0, scanned = 0, end = 0
    private var reachedEnd = false
    /// Lines returned so far.
    private var linesReturned = 0
    /// Whether no line was returned yet: the first may open with a byte order mark, dropped.
    private var atStart: Bool { linesReturned == 0 }

    /// Opens `path`, or standard input for `-`; `nil` when the file cannot be opened. Any
    /// kind of file is read (a FIFO too: `--events <(…)`), waiting for its writer.
    init?(path: String, maximumLineBytes: Int = LineReader.maximumLineBytes) {
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
        self.maximumLineBytes = maximumLineBytes
        buffer = .allocate(byteCount: min(1 << 16, maximumLineBytes + 1), alignment: 1)
    }

    /// Opens `path`, which must be a regular file (following links): a FIFO, socket or
    /// device is refused without waiting for a writer (checked before it is opened, and
    /// again on what was opened, without blocking, in case the file was replaced between).
    /// - Throws: ``LineReaderError/cannotOpen(_:reason:)`` or ``LineReaderError/notRegularFile(_:kind:)``.
    init(regularFile path: String, maximumLineBytes: Int = LineReader.maximumLineBytes) throws(LineReaderError) {
        var found = stat()
        if stat(path, &found) == 0, found.st_mode & S_IFMT != S_IFREG {  // a device is not even opened
            throw .notRegularFile(path, kind: Self.kind(of: found.st_mode))
        }
        let opened = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard opened >= 0 else { throw .cannotOpen(path, reason: String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(opened, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(opened)
            throw .cannotOpen(path, reason: reason)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(opened)
            throw .notRegularFile(path, kind: Self.kind(of: status.st_mode))
        }
        _ = fcntl(opened, F_SETFL, fcntl(opened, F_GETFL) & ~O_NONBLOCK)  // no effect on a regular file; for clarity
        name = path
        descriptor = opened
        ownsDescriptor = true
        self.maximumLineBytes = maximumLineBytes
        buffer = .allocate(byteCount: min(1 << 16, maximumLineBytes + 1), alignment: 1)
    }

    deinit {
        if let storedFailure, !failureSeen { printError("\(storedFailure); the rest of \(name) was not read") }
        buffer.deallocate()
        if ownsDescriptor { close(descriptor) }
    }

    /// The next line without its line break (and trailing carriage returns), or `nil` at the
    /// end; the first without a UTF-8 byte order mark.
    func nextLine() -> String? {
        withNextLine { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the next line's bytes, as ``nextLine()`` cuts it (valid only during
    /// the call), and returns what it returns; `nil` at the end, or once ``failure`` is set.
    /// No `String` is made.
    func withNextLine<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result? {
        while storedFailure == nil {
            if let lineBreak = nextLineBreak() {
                guard lineBreak - start <= maximumLineBytes else { return tooLong() }
                return try body(take(upTo: lineBreak, skipping: 1))
            }
            guard end - start <= maximumLineBytes else { return tooLong() }
            if reachedEnd { return start < end ? try body(take(upTo: end, skipping: 0)) : nil }
            fill()
        }
        return nil
    }

    /// Whether ``nextLine()`` can return without waiting for input (a whole line is read or
    /// can be read at once, the input ended, or the reader failed).
    var hasLineReady: Bool {
        while !reachedEnd, storedFailure == nil, nextLineBreak() == nil {
            if end - start > maximumLineBytes { return true }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 0) > 0 else { return false }
            fill()
        }
        return true
    }

    /// Sets ``failure`` for the line under way; returns `nil`.
    private func tooLong<Result>() -> Result? {
        storedFailure = .lineTooLong(name, line: linesReturned + 1, limit: maximumLineBytes)
        return nil
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
        if atStart, lineEnd - start >= 3, buffer[start] == 0xEF, buffer[start + 1] == 0xBB, buffer[start + 2] == 0xBF {
            textStart += 3
        }
        linesReturned += 1
        var textEnd = lineEnd
        while textEnd > textStart, buffer[textEnd - 1] == 0x0D { textEnd -= 1 }
        start = lineEnd + skipping
        scanned = start
        return UnsafeRawBufferPointer(rebasing: buffer[textStart..<textEnd])
    }

    /// Reads more input after what is buffered (moving it to the front, or growing the
    /// buffer for a long line, never past what ``maximumLineBytes`` needs); a read error
    /// sets ``failure``.
    private func fill() {
        if start > 0 {
            let pending = end - start
            if pending > 0, let base = buffer.baseAddress { memmove(base, base + start, pending) }
            scanned -= start
            end = pending
            start = 0
        }
        if end == buffer.count {
            // end ≤ maximumLineBytes here (a longer line failed first), so the buffer grows.
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: min(buffer.count * 2, maximumLineBytes + 1), alignment: 1)
            larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[..<end]))
            buffer.deallocate()
            buffer = larger
        }
        guard let base = buffer.baseAddress else {
            reachedEnd = true
            return
        }
        while true {
            let count = read(descriptor, base + end, buffer.count - end)
            if count > 0 {
                end += count
                return
            }
            if count == 0 {
                reachedEnd = true
                return
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:  // a descriptor set not to block (standard input): wait for it
                var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&request, 1, -1)
            default:
                storedFailure = .readFailed(name, line: linesReturned + 1, reason: String(cString: strerror(errno)))
                return
            }
        }
    }

    /// How `mode`'s kind of file is called in messages.
    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a folder"
        default: return "a special file"
        }
    }
}

/// Why a ``LineReader`` cannot open its file or stopped before its end.
enum LineReaderError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be opened.
    case cannotOpen(String, reason: String)
    /// Only regular files are sessions; `kind` says what it is ("a FIFO").
    case notRegularFile(String, kind: String)
    /// Line `line` is longer than `limit` bytes.
    case lineTooLong(String, line: Int, limit: Int)
    /// Reading failed at line `line`.
    case readFailed(String, line: Int, reason: String)

    var description: String {
        switch self {
        case let .cannotOpen(path, _), let .notRegularFile(path, _): return "\(path): \(message)"
        case let .lineTooLong(path, line, _), let .readFailed(path, line, _): return "\(path):\(line): \(message)"
        }
    }

    /// The message without the `path:` (or `path:line:`) prefix.
    var message: String {
        switch self {
        case let .cannotOpen(_, reason): return "cannot open: \(reason)"
        case let .notRegularFile(_, kind): return "\(kind), not a regular file (only regular files are sessions)"
        case let .lineTooLong(_, _, limit):
            return "line longer than \(limit) bytes, the maximum line length ($\(LineReader.maximumLineBytesVariable) raises it)"
        case let .readFailed(_, _, reason): return "cannot read: \(reason)"
        }
    }

    /// The line a failure happened at (`nil` when the file could not be opened).
    var line: Int? {
        switch self {
        case .cannotOpen, .notRegularFile: return nil
        case let .lineTooLong(_, line, _), let .readFailed(_, line, _): return line
        }
    }
}
