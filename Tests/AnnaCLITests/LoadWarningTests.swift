// A task file that exists and never loads (its class renamed) is named by default, counted
// by `anna check`, and fails --require-coverage in run, check and trace.
import AnnaTestSupport
import Foundation
import Testing

@Suite("task files never loaded, --require-coverage", .timeLimit(.minutes(2)))
struct LoadWarningTests {
    static let warning = "anna: NoteDetail.js never loaded; namespace NoteDetailViewController has no file: renamed?"

    /// A notes module whose detail screen's class was renamed: `NoteDetail.js` exists, the
    /// stream's namespace is `NoteDetailViewController`.
    static func notes() throws -> Workspace {
        try Workspace([
            "module/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' });\n",
            "module/task/index.js": "match('/notes/ana-appeared', () => ({ event: 'screen_view' }));\nmatch('/never', () => 'never');\n",
            "module/task/NoteDetail.js": "match('detail/ana-appeared', () => ({ event: 'note_view' }));\n",
            "session.ndjson": """
            {"op":"register","id":1,"parent":null,"name":"__root__"}
            {"op":"register","id":2,"parent":1,"name":"notes"}
            {"op":"appear","id":2}
            {"op":"register","id":3,"parent":2,"name":"detail","namespace":"NoteDetailViewController"}
            {"op":"appear","id":3}

            """,
            "trace.json": #"{"items": [{"event": "screen_view"}]}"#,
        ])
    }

    @Test("anna run names a task file never loaded beside the namespace without a file, once, and exits 0")
    func runWarns() async throws {
        let workspace = try Self.notes()
        let output = try await workspace.runModule(["--strict"])
        #expect(output.status == 0)
        #expect(output.stdoutLines == [#"{"event":"screen_view"}"#])
        #expect(output.stderrLines.filter { $0 == Self.warning }.count == 1, "\(output.stderr)")
    }

    @Test("--require-coverage lists each file never loaded and each task never ran with file:line, and exits 1")
    func runRequiresCoverage() async throws {
        let workspace = try Self.notes()
        let output = try await workspace.runModule(["--require-coverage"])
        #expect(output.status == 1)
        let task = LocalPath.real(workspace.file("module/task"))
        #expect(output.stderrLines.contains(Self.warning))
        #expect(output.stderrLines.contains("\(task)/NoteDetail.js:1: task file never loaded (no node's namespace asked for it)"))
        #expect(output.stderrLines.contains { $0.hasPrefix("\(task)/index.js:2:") && $0.hasSuffix(": task '/never' never ran") })
        #expect(output.stderrLines.last == "anna: --require-coverage: 1 task file never loaded, 1 task never ran; failing the run")
    }

    @Test("--require-coverage passes when every task file loaded and every task ran")
    func runCovered() async throws {
        let workspace = try Self.notes()
        try workspace.write("module/task/index.js", "match('/notes/ana-appeared', () => ({ event: 'screen_view' }));\n")
        try FileManager.default.moveItem(
            atPath: workspace.file("module/task/NoteDetail.js"), toPath: workspace.file("module/task/NoteDetailViewController.js"))
        let output = try await workspace.runModule(["--require-coverage"])
        #expect(output.status == 0)
        #expect(output.stderr == "")
        #expect(output.stdoutLines == [#"{"event":"screen_view"}"#, #"{"event":"note_view"}"#])
    }

    @Test("anna check --events counts a task file never loaded as a problem")
    func checkCounts() async throws {
        let workspace = try Self.notes()
        try workspace.write("module/task/index.js", "match('/notes/ana-appeared', () => ({ event: 'screen_view' }));\n")
        let output = try await AnnaInProcess.run([
            "check", "--module", workspace.file("module"), "--events", workspace.file("session.ndjson"),
        ])
        #expect(output.status == 1)
        #expect(output.stderrLines == [Self.warning])
        #expect(output.stdoutLines.last == "2 files, 2 patterns, 1 problem")
    }

    @Test("anna check --require-coverage needs --events (64)")
    func checkNeedsEvents() async throws {
        let workspace = try Self.notes()
        let output = try await AnnaInProcess.run(["check", "--module", workspace.file("module"), "--require-coverage"])
        #expect(output.status == 64)
        #expect(output.stderr.contains("--require-coverage needs --events FILE"))
    }

    @Test("anna trace warns too, and --require-coverage fails a passing trace")
    func trace() async throws {
        let workspace = try Self.notes()
        let arguments = [
            "trace", "--events", workspace.file("session.ndjson"), "--module", workspace.file("module"), "--expect", workspace.file("trace.json"),
        ]
        let plain = try await AnnaInProcess.run(arguments)
        #expect(plain.status == 0)
        #expect(plain.stderrLines == [Self.warning])
        let required = try await AnnaInProcess.run(arguments + ["--require-coverage"])
        #expect(required.status == 1)
        #expect(required.stdoutLines.last == "1 passed, 0 failed")
        #expect(required.stderrLines.last == "anna: --require-coverage: 1 task file never loaded, 1 task never ran; failing the run")
    }
}
