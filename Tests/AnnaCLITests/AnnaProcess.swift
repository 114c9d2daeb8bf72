import AnnaTestSupport
import Foundation

/// Runs the built `anna` binary and captures what it prints.
struct AnnaProcess {
    /// What the child did: status, output, whether a signal or the timeout ended it.
    typealias Output = ChildProcess.Output

    /// The binary next to the test bundle (`.build/<config>/anna`).
    static let executable = BuildProducts.executable("anna")

    /// Runs `anna arguments…` with `input` on standard input; stops it after `timeout` seconds.
    /// Waits on a thread of its own (``onOwnThread(_:)``), not on one of the few that run the
    /// tests' tasks.
    static func run(
        _ arguments: [String], input: String? = nil, environment: [String: String]? = nil, timeout: TimeInterval? = nil
    ) async throws -> Output {
        try await ChildProcess.run(executable: executable, arguments: arguments, environment: environment, input: input, timeout: timeout)
    }
}

/// The CLI tests' workspaces: a temporary folder with a module and sessions.
typealias Workspace = TemporaryFolder

extension TemporaryFolder {
    /// Writes `name`: the workspace's `session.ndjson`, then `extra`.
    func writeSession(_ name: String, appending extra: String) throws {
        try write(name, try read("session.ndjson") + extra)
    }

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
