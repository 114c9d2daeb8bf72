import AnnaTestSupport
import Foundation

/// `anna arguments…` as a real process fed through standard input line by line: for `--watch`,
/// where results must be read as they come. Its blocking reads and waits run on threads of
/// their own, not on the few that run the tests' tasks; one test uses it, one step at a time.
final class StreamingRun: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private var received = Data()

    /// Starts `anna arguments…` with `environment` added to this process's.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = AnnaProcess.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Sends `lines`, then waits for the next result line (nil when the output ended).
    func send(_ lines: String) async throws -> String? {
        try await onOwnThread { self.sendWaiting(lines) }
    }

    private func sendWaiting(_ lines: String) -> String? {
        input.fileHandleForWriting.write(Data(lines.utf8))
        while true {
            if let end = received.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: received[..<end], as: UTF8.self)
                received.removeSubrange(...end)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            received.append(chunk)
        }
    }

    /// Closes standard input, waits for the exit and returns what was written on standard error.
    func finish() async throws -> String {
        try input.fileHandleForWriting.close()
        return try await onOwnThread {
            let stderr = String(decoding: self.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            self.process.waitUntilExit()
            return stderr
        }
    }

    /// Writes `contents` to `name` in `workspace` with a modification time 5 s ahead (the watch
    /// compares times; a rewrite within the same tick must still count), then waits past the
    /// watch's interval.
    static func edit(_ workspace: Workspace, _ name: String, _ contents: String) async throws {
        try workspace.write(name, contents)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: workspace.file(name))
        try await Task.sleep(for: .milliseconds(300))
    }
}
