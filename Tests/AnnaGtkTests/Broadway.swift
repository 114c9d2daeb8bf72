import AnnaTestSupport
import Foundation

/// A GTK display for one test: `gtk4-broadwayd` on a free loopback port, with its socket in a
/// private runtime folder, so tests run side by side and need no X server.
struct Broadway {
    /// Runs `body` with the environment a GTK process needs to use the display, then stops it.
    static func with<Value>(_ body: ([String: String]) async throws -> Value) async throws -> Value {
        let runtime = try TemporaryFolder()
        // GLib wants the runtime folder private.
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
        let port = try LoopbackPort.unused()
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["GDK_BACKEND"] = "broadway"
        environment["BROADWAY_DISPLAY"] = ":1"
        environment["GSK_RENDERER"] = "cairo"
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/gtk4-broadwayd")
        daemon.arguments = [":1", "--address", "127.0.0.1", "--port", "\(port)"]
        daemon.environment = environment
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        let result: Result<Value, any Error>
        do {
            // Ready once its socket exists (broadway's display :1 is `broadway2.socket`).
            let socket = runtime.url.appendingPathComponent("broadway2.socket").path
            for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) {
                guard daemon.isRunning else { throw BroadwayError.daemonEnded(daemon.terminationStatus) }
                try await Task.sleep(for: .milliseconds(10))
            }
            guard FileManager.default.fileExists(atPath: socket) else { throw BroadwayError.noSocket(socket) }
            result = .success(try await body(environment))
        } catch {
            result = .failure(error)
        }
        // It ignores SIGTERM. Waited for on a thread of its own, not one of the few that run
        // the tests' tasks.
        let running = RunningProcess(daemon)
        try await onOwnThread {
            kill(running.process.processIdentifier, SIGKILL)
            running.process.waitUntilExit()
        }
        return try result.get()
    }
}

/// A process handed to the thread that waits for it (`Process` is not `Sendable`; only that
/// thread touches it then).
private final class RunningProcess: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
}

enum BroadwayError: Error, CustomStringConvertible {
    case daemonEnded(Int32)
    case noSocket(String)

    var description: String {
        switch self {
        case let .daemonEnded(status): "gtk4-broadwayd ended at once (status \(status)); is libgtk-4-bin installed? (make setup)"
        case let .noSocket(path): "gtk4-broadwayd made no socket at \(path) within 2 s"
        }
    }
}
