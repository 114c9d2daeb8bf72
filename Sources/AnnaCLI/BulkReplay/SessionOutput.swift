import CoreJS
import Foundation

/// Where one session's result lines go while it replays. Nothing of a session reaches its
/// destination before it is done: a failed session leaves no output.
protocol SessionOutput: AnyObject {
    /// Adds one result line (without its line break).
    func append(_ line: String) throws
    /// Makes the output final; returns its size in bytes.
    func commit() throws -> Int
    /// Drops what was written.
    func discard()
}

/// Why an output cannot be written.
struct SessionOutputError: Error, CustomStringConvertible {
    var description: String
}

/// `DIR/<session>.ndjson`: written to `DIR/.<session>.ndjson.partial` in large writes, synced
/// and renamed into place when the session is done, so the file is either complete or absent.
final class SessionFileOutput: SessionOutput {
    let finalPath: String
    private let partialPath: String
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var size = 0
    private var closed = false
    private static let flushSize = 1 << 16

    /// Creates the partial file.
    /// - Throws: ``SessionOutputError`` when it cannot be created.
    init(folder: String, session: String) throws {
        finalPath = folder + "/" + session + ".ndjson"
        partialPath = folder + "/." + session + ".ndjson.partial"
        descriptor = open(partialPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SessionOutputError(description: "cannot write \(partialPath): \(String(cString: strerror(errno)))")
        }
        buffer.reserveCapacity(Self.flushSize + 4096)
    }

    deinit {
        if !closed {
            close(descriptor)
            unlink(partialPath)
        }
    }

    func append(_ line: String) throws {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= Self.flushSize { try flush() }
    }

    func commit() throws -> Int {
        try flush()
        closed = true
        let synced = fsync(descriptor) == 0
        let error = errno
        close(descriptor)
        guard synced else {
            unlink(partialPath)
            throw SessionOutputError(description: "cannot write \(partialPath): \(String(cString: strerror(error)))")
        }
        guard rename(partialPath, finalPath) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partialPath)
            throw SessionOutputError(description: "cannot rename \(partialPath) to \(finalPath): \(reason)")
        }
        return size
    }

    func discard() {
        guard !closed else { return }
        closed = true
        close(descriptor)
        unlink(partialPath)
    }

    private func flush() throws {
        var written = 0
        while written < buffer.count {
            let count = buffer[written...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SessionOutputError(description: "cannot write \(partialPath): \(String(cString: strerror(errno)))")
            }
            written += count
        }
        size += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }
}

/// `--meta` without `--out`: the session's tagged lines, kept in memory and written to
/// standard output in one piece when the session is done (so sessions replayed in parallel
/// never interleave their lines).
final class SessionStandardOutput: SessionOutput {
    private var text = ""
    private let writer: StandardOutputWriter

    init(writer: StandardOutputWriter) {
        self.writer = writer
    }

    func append(_ line: String) throws {
        text += line
        text += "\n"
    }

    func commit() throws -> Int {
        let size = text.utf8.count
        writer.write(text)
        text = ""
        return size
    }

    func discard() {
        text = ""
    }
}

/// Standard output and standard error shared by the workers: each write whole, under a lock.
final class StandardOutputWriter: Sendable {
    private let lock = Locked(())

    /// Writes `text` to standard output in one piece.
    func write(_ text: String) {
        lock.withLock { _ in FileHandle.standardOutput.write(Data(text.utf8)) }
    }
}

/// Standard error (or the `--console` file for task output) shared by the workers, each write
/// whole; console output of a task is prefixed with its session's name.
final class MessageWriter: OutputSink {
    private let lock = Locked(())
    private let sink: any OutputSink

    init(sink: any OutputSink = FileHandleOutputSink.standardError) {
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
