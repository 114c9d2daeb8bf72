import Foundation

/// Writes every operation a ``Manager`` sends to its core to a file, in the event-stream
/// format, so that `anna run` can replay the session exactly. Used only on the script queue.
final class EventStreamRecorder {
    private let handle: FileHandle
    private let path: String
    private let onFailure: (AnalyticsError) -> Void
    private var failed = false

    /// Creates (or truncates) the file and writes the version line; `onFailure` hears of a
    /// write error once (recording stops then).
    init(url: URL, onFailure: @escaping (AnalyticsError) -> Void) throws {
        path = url.path
        self.onFailure = onFailure
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw AnalyticsError.recordingFailed(path: url.path, reason: "cannot create the file")
        }
        handle = try FileHandle(forWritingTo: url)
        write(#"{"op":"version","version":\#(EventStream.version)}"# + "\n")
    }

    deinit {
        try? handle.close()
    }

    /// Writes the operations' lines with one write.
    func record(_ operations: some Sequence<TimedOperation>) {
        var lines = ""
        for item in operations { lines += EventStream.line(for: item.operation, time: item.time) + "\n" }
        if !lines.isEmpty { write(lines) }
    }

    func recordSnapshot() {
        write(#"{"op":"snapshot"}"# + "\n")
    }

    /// Writes whole lines (each ends in a newline).
    private func write(_ lines: String) {
        guard !failed else { return }
        do {
            try handle.write(contentsOf: Data(lines.utf8))
        } catch {
            failed = true
            onFailure(.recordingFailed(path: path, reason: error.localizedDescription))
        }
    }
}
