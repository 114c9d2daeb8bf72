import AnnaTestSupport
import Foundation

/// Runs the built `anna` binary and captures what it prints.
struct AnnaProcess {
    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Whether a signal ended the process (a crash, or the stop after `timeout`).
        var signalled = false
        /// Whether the process ran past `timeout` and was stopped (by SIGTERM, which `anna` does not catch).
        var timedOut = false
        var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }

    /// The binary next to the test bundle (`.build/<config>/anna`).
    static let executable = BuildProducts.executable("anna")

    /// Runs `anna arguments…` with `input` on standard input; stops it after `timeout` seconds.
    /// Waits on a thread of its own (``onOwnThread(_:)``), not on one of the few that run the
    /// tests' tasks.
    static func run(
        _ arguments: [String], input: String? = nil, environment: [String: String]? = nil, timeout: TimeInterval? = nil
    ) async throws -> Output {
        try await onOwnThread { try runWaiting(arguments, input: input, environment: environment, timeout: timeout) }
    }

    private static func runWaiting(
        _ arguments: [String], input: String?, environment: [String: String]?, timeout: TimeInterval?
    ) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        if let environment { process.environment = environment }
        try process.run()
        if let timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { if process.isRunning { process.terminate() } }
        }
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        // Read both pipes fully before waiting, so a large output cannot block the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        group.enter()
        DispatchQueue.global().async {
            errorData = stderr.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        let signalled = process.terminationReason == .uncaughtSignal
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self), signalled: signalled,
            timedOut: signalled && timeout != nil && process.terminationStatus == SIGTERM)
    }
}

/// The CLI tests' workspaces: a temporary folder with a module and sessions.
typealias Workspace = TemporaryFolder

extension TemporaryFolder {
    /// Writes `long.ndjson`: the shop session, 3,000 `scroll` events on its item, then
    /// `extra` lines. Returns the file's path.
    func writeLongSession(appending extra: String = "") throws -> String {
        var lines = try read("session.ndjson")
        for n in 0..<3000 { lines += #"{"op":"event","id":3,"name":"scroll","properties":{"n":\#(n)}}"# + "\n" }
        try write("long.ndjson", lines + extra)
        return file("long.ndjson")
    }

    /// Runs `anna run --events <events> --module module` on a terminal (`script` gives it
    /// one) with progress shown at every batch; standard output goes to `out.txt`. Returns
    /// the exit status and what the terminal showed.
    func runOnTerminal(events: String) throws -> (status: Int32, terminal: String) {
        let command = "\(AnnaProcess.executable.path) run --events \(events) --module \(file("module")) > \(file("out.txt"))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", command, file("terminal.txt")]
        process.environment = ["ANNA_PROGRESS_INTERVAL": "0", "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try read("terminal.txt"))
    }

    /// A small analytics module on the bundled core, and a session for it.
    static func shop() throws -> TemporaryFolder {
        try TemporaryFolder([
            "module/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' });\n",
            "module/task/index.js": """
            match('/home/ana-appeared', (node) => ({ action: 'viewed', screen: node.path }));
            match('list/item/did-select', (node) => ({ action: 'selected', item: node.index, title: node.latestValue('title') }));
            match('list/item/explode', () => { throw new Error('boom') });
            match('log', (node) => { console.log('logged from', node.path); });
            """,
            "session.ndjson": """
            {"op":"version","version":1}
            // the shop session
            {"op":"register","id":1,"parent":null,"name":"__root__","time":1000}
            {"op":"register","id":2,"parent":1,"name":"home","time":1001}
            {"op":"register","id":[2,"list"],"parent":2,"name":"list","time":1002}
            {"op":"register","id":3,"parent":[2,"list"],"name":"item","index":4,"time":1003}
            {"op":"appear","id":2,"time":1004}
            {"op":"update","id":3,"keyPath":"title","value":"Boots","time":1005}
            {"op":"event","id":3,"name":"did-select","time":1006}

            """,
        ])
    }
}
