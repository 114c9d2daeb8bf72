import Foundation

/// Where a ``StreamSession`` reads its lines.
public enum StreamSource: Sendable, Equatable {
    /// A file, read to its end; with `follow`, lines appended later are read too (as `tail -f`).
    case file(path: String, follow: Bool)
    /// Standard input, until it closes.
    case standardInput

    /// The name messages give it (`FILE:LINE: …`).
    public var name: String {
        switch self {
        case let .file(path, _): return path
        case .standardInput: return "<stdin>"
        }
    }
}

/// Reads a source's lines on a thread of its own and hands each batch on as it comes.
///
/// A followed file is watched as `tail -F` watches one: at its end, when it has become shorter
/// than what was read (truncated in place, as logrotate's `copytruncate` does), reading starts
/// again at its start; when its name now names another file (moved away and created anew),
/// that file is read from its start. Each time is said once through `onNotice`; an unfinished
/// last line read before is dropped (and counted in the notice), so no line is read from its middle.
final class StreamLineReader: @unchecked Sendable {
    /// How long a followed file's end is waited on before looking again.
    static let followInterval: TimeInterval = 0.05
    /// The longest line handed on, as `anna run` reads by default (16 MiB): a longer one is
    /// cut there (and refused as malformed) and the rest of it skipped, so no input grows
    /// memory without bound.
    static let maximumLineBytes = 16 << 20

    private let source: StreamSource
    private let onLines: @Sendable ([Data]) -> Void
    private let onEnd: @Sendable ((any Error)?) -> Void
    private let onReachedEnd: @Sendable () -> Void
    private let onNotice: @Sendable (String) -> Void
    private let stopped = NSLock()
    private var isStopped = false

    /// - Parameters:
    ///   - onLines: The lines read (without their `\n`), in order, on the reader's thread.
    ///   - onEnd: Called once when no line will come any more (with the error that ended it).
    ///   - onReachedEnd: Called once when a followed file's end was first reached (lines after
    ///     it are appended live).
    ///   - onNotice: A line for a person: a followed file was truncated or replaced, a line cut.
    init(
        source: StreamSource, onLines: @escaping @Sendable ([Data]) -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void,
        onReachedEnd: @escaping @Sendable () -> Void = {}, onNotice: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.source = source
        self.onLines = onLines
        self.onEnd = onEnd
        self.onReachedEnd = onReachedEnd
        self.onNotice = onNotice
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "anna.inspector.reader"
        thread.start()
    }

    /// Stops following (the thread ends at its next look).
    func stop() {
        stopped.withLock { isStopped = true }
    }

    private var shouldStop: Bool { stopped.withLock { isStopped } }

    private func run() {
        var handle: FileHandle
        let follow: Bool
        var followedPath: String?
        switch source {
        case let .file(path, followFile):
            guard let opened = FileHandle(forReadingAtPath: path) else {
                onEnd(CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path]))
                return
            }
            handle = opened
            follow = followFile
            followedPath = followFile ? path : nil
        case .standardInput:
            handle = FileHandle.standardInput
            follow = false
        }
        var pending = Data()
        /// Whether the bytes read next are the rest of a line cut at ``maximumLineBytes``.
        var cutting = false
        var reachedEnd = false
        var offset: UInt64 = 0
        while !shouldStop {
            let data: Data
            do {
                data = try handle.read(upToCount: 65_536) ?? Data()
            } catch {
                onEnd(error)
                return
            }
            if data.isEmpty {
                guard follow else { break }
                if !reachedEnd {
                    reachedEnd = true
                    onReachedEnd()
                }
                if let path = followedPath, let restart = FollowedFile.restart(of: handle, path: path, offset: offset) {
                    let bytes = pending.count == 1 ? "1 byte" : "\(pending.count) bytes"
                    let dropped = pending.isEmpty ? "" : " (an unfinished line of \(bytes) read before was dropped)"
                    switch restart {
                    case .truncated:
                        onNotice("\(path) was truncated; reading from its start\(dropped)")
                        do {
                            try handle.seek(toOffset: 0)
                        } catch {
                            onEnd(error)
                            return
                        }
                    case let .replaced(newHandle):
                        onNotice("\(path) was replaced by a new file; reading it from its start\(dropped)")
                        try? handle.close()  // the old file is done with; closing it cannot lose anything
                        handle = newHandle
                    }
                    offset = 0
                    pending = Data()
                    cutting = false
                    continue
                }
                Thread.sleep(forTimeInterval: Self.followInterval)
                continue
            }
            offset += UInt64(data.count)
            var fresh = data[...]
            if cutting {
                // The rest of a line cut at the limit: skipped up to its line break.
                guard let newline = fresh.firstIndex(of: UInt8(ascii: "\n")) else { continue }
                fresh = fresh[newline...]
                cutting = false
            }
            // Only the bytes just read are searched, and what is left copied once: a long line
            // read in many pieces costs its length, not its length squared.
            var searchFrom = pending.count
            pending.append(contentsOf: fresh)
            var lines: [Data] = []
            var lineStart = 0
            while let newline = pending[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(pending[lineStart..<newline])
                lineStart = newline + 1
                searchFrom = lineStart
            }
            if lineStart > 0 { pending = Data(pending[lineStart...]) }
            if pending.count > Self.maximumLineBytes {
                pending = Data(pending.prefix(Self.maximumLineBytes))
                cutting = true
                onNotice(
                    "\(source.name): a line is longer than \(Self.maximumLineBytes >> 20) MiB; it is cut there and the rest of it skipped (the line is refused as malformed)"
                )
            }
            if !lines.isEmpty { onLines(lines) }
        }
        if !pending.isEmpty { onLines([pending]) }  // a last line without its newline
        onEnd(nil)
    }
}
