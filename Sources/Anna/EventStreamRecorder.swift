import Foundation

/// Writes every operation a ``Manager`` sends to its core to a file, in the event-stream
/// format, so that `anna run` can replay the session exactly. Used only on the script queue.
final class EventStreamRecorder {
    private let handle: FileHandle

    /// Creates (or truncates) the file and writes the version line.
    init(url: URL) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 0)
        write(#"{"op":"version","version":\#(EventStream.version)}"#)
    }

    deinit {
        try? handle.close()
    }

    func record(_ operation: ModuleOperation, time: Double?) {
        write(EventStream.line(for: operation, time: time))
    }

    func recordSnapshot() {
        write(#"{"op":"snapshot"}"#)
    }

    private func write(_ line: String) {
        handle.write(Data((line + "\n").utf8))
    }
}
