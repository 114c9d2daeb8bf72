import CoreJS
import Foundation

/// Where one session's result lines go while it replays: a file descriptor the session's
/// ``ResultWriter`` writes into. Nothing of a session reaches its destination before it is
/// done: a failed session leaves no output.
protocol SessionOutput: AnyObject {
    /// The descriptor the session's results are written to.
    var descriptor: Int32 { get }
    /// The descriptor's name in messages.
    var name: String { get }
    /// Makes the output final; returns its size in bytes.
    func commit() throws -> Int
    /// Drops what was written.
    func discard()
}

/// Why an output cannot be written.
struct SessionOutputError: Error, CustomStringConvertible {
    var description: String

    /// The error of a failed call on `path`, with `errno`'s text.
    static func failed(_ what: String, _ path: String, errorNumber: Int32 = errno) -> SessionOutputError {
        SessionOutputError(description: "cannot \(what) \(path): \(String(cString: strerror(errorNumber)))")
    }
}

/// `DIR/<session>.ndjson`: written to `DIR/.<session>.ndjson.partial` and renamed into place
/// when the session is done (synced first with `sync`), so the file is either complete or
/// absent.
final class SessionFileOutput: SessionOutput {
    let descriptor: Int32
    var name: String { partialPath }
    let finalPath: String
    private let partialPath: String
    private let sync: Bool
    private var closed = false

    /// Creates the partial file.
    /// - Throws: ``SessionOutputError`` when it cannot be created.
    init(folder: String, session: String, sync: Bool) throws {
        self.sync = sync
        finalPath = Self.finalPath(folder: folder, session: session)
        partialPath = Self.partialPath(folder: folder, session: session)
        descriptor = open(partialPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SessionOutputError.failed("write", partialPath) }
    }

    deinit {
        discard()
    }

    /// `folder/<session>.ndjson`: where a done session's results end up.
    static func finalPath(folder: String, session: String) -> String {
        folder + "/" + session + ".ndjson"
    }

    /// `folder/.<session>.ndjson.partial`: where they are written first.
    static func partialPath(folder: String, session: String) -> String {
        folder + "/." + session + ".ndjson.partial"
    }

    func commit() throws -> Int {
        closed = true
        let size = lseek(descriptor, 0, SEEK_CUR)
        let synced = size >= 0 && (!sync || fsync(descriptor) == 0)
        let error = errno
        close(descriptor)
        guard synced else {
            unlink(partialPath)
            throw SessionOutputError.failed("write", partialPath, errorNumber: error)
        }
        guard rename(partialPath, finalPath) == 0 else {
            let error = SessionOutputError.failed("rename \(partialPath) to", finalPath)
            unlink(partialPath)
            throw error
        }
        return Int(size)
    }

    func discard() {
        guard !closed else { return }
        closed = true
        close(descriptor)
        unlink(partialPath)
    }
}

/// Standard output (without `--out`): the session's lines gather in an unnamed temporary
/// file and go to standard output in one piece when the session is done (so sessions
/// replayed in parallel never interleave their lines); with `tag`, each line
/// `{"result":…}` becomes `{"session":TAG,"result":…}`.
final class SessionStandardOutput: SessionOutput {
    let descriptor: Int32
    let name = "a temporary file"
    private let file: UnsafeMutablePointer<FILE>
    private let writer: StandardOutputWriter
    private let tag: [UInt8]?

    /// - Throws: ``SessionOutputError`` when no temporary file can be made.
    init(writer: StandardOutputWriter, tag session: String?) throws {
        guard let file = tmpfile() else { throw SessionOutputError.failed("create", "a temporary file (TMPDIR)") }
        self.file = file
        descriptor = fileno(file)
        self.writer = writer
        tag = session.map { Array(#"{"session":\#(JSONValue.string($0).jsonText),"#.utf8) }
    }

    deinit {
        fclose(file)
    }

    func commit() throws -> Int {
        let size = lseek(descriptor, 0, SEEK_CUR)
        guard size >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else { throw SessionOutputError.failed("read", name) }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw SessionOutputError.failed("read", name) }
            offset += count
        }
        let text = tag.map { Self.tagging(bytes, with: $0) } ?? bytes
        writer.write(text)
        return text.count
    }

    func discard() {}

    /// `lines` with `tag` in place of each line's opening brace.
    private static func tagging(_ lines: [UInt8], with tag: [UInt8]) -> [UInt8] {
        var tagged: [UInt8] = []
        tagged.reserveCapacity(lines.count + lines.count / 8)
        var lineStart = true
        for byte in lines {
            if lineStart, byte == UInt8(ascii: "{") {
                tagged.append(contentsOf: tag)
            } else {
                tagged.append(byte)
            }
            lineStart = byte == UInt8(ascii: "\n")
        }
        return tagged
    }
}

/// Standard output and standard error shared by the workers: each write whole, under a lock.
final class StandardOutputWriter: Sendable {
    private let lock = Locked(())
    /// Standard output, as it was when the writer was made (the workers are threads of their own).
    private let output = StandardStreams.current.output

    /// Writes `bytes` to standard output in one piece.
    func write(_ bytes: [UInt8]) {
        lock.withLock { _ in
            switch output {
            case let .memory(capture): capture.append(bytes)
            default: bytes.withUnsafeBytes { output.write($0) }
            }
        }
    }
}

/// Standard error (or the `--console` file for task output) shared by the workers, each write
/// whole; console output of a task is prefixed with its session's name.
final class MessageWriter: OutputSink {
    private let lock = Locked(())
    private let sink: any OutputSink

    init(sink: any OutputSink = StandardStreams.current.error) {
        self.sink = sink
    }

    func write(_ text: String) {
        lock.withLock { _ in sink.write(text) }
    }

    /// Writes `line` and a line break.
    func writeLine(_ line: String) {
        write(line + "\n")
    }
}

/// The console of one worker's engine: console output of tasks, each line prefixed with the
/// name of the session that printed it (`checkout-17: …`).
final class SessionConsoleSink: OutputSink {
    private let destination: MessageWriter
    private let session = Locked("")

    init(destination: MessageWriter) {
        self.destination = destination
    }

    /// The session whose tasks print from now on.
    func setSession(_ name: String) {
        session.withLock { $0 = name }
    }

    func write(_ text: String) {
        let name = session.withLock { $0 }
        destination.write(name.isEmpty ? text : "\(name): \(text)")
    }
}
