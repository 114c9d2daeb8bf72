// Coverage, --watch and task locations through the built binary (the core's coverage(),
// reloadTaskFile() and runningTask() under the library's Coverage, watchTasks and TaskFailure).
import Anna
import AnnaTestSupport
import Foundation
import Testing

extension AnnaProcess.Output {
    /// Standard error without the note about tasks that never ran (which a run prints
    /// whenever its session leaves a task unused, as the shop session does).
    var stderrLinesWithoutNotes: [String] {
        stderrLines.filter { !($0.hasPrefix("anna: ") && $0.hasSuffix("--coverage lists them")) }
    }
}

@Suite("anna run --coverage and anna check --events", .timeLimit(.minutes(2)))
struct CoverageTests {
    @Test("--coverage prints a table of task files and task counts on standard error")
    func table() async throws {
        let workspace = try Workspace.shop()
        let output = try await workspace.runModule(["--coverage"])
        #expect(output.status == 0)
        #expect(output.stdoutLines.count == 2)
        #expect(output.stderrLines.first == "index.js: loaded")
        #expect(output.stderrLines.contains("  1:\t/home/ana-appeared\t1 match"))
        #expect(output.stderrLines.contains("  3:\tlist/item/explode\t0 matches  never fired"))
        #expect(output.stderrLines.last == "4 tasks (2 never fired), 1 task file (0 never loaded), 0 namespaces without a task file")
    }

    @Test("--coverage=FILE writes the coverage as JSON")
    func json() async throws {
        let workspace = try Workspace.shop()
        let output = try await workspace.runModule(["--coverage=\(workspace.file("coverage.json"))"])
        #expect(output.status == 0)
        #expect(output.stderr == "")
        let coverage = try JSONDecoder().decode(Coverage.self, from: Data(try workspace.read("coverage.json").utf8))
        #expect(coverage.tasks.map(\.task) == ["/home/ana-appeared", "list/item/did-select", "list/item/explode", "log"])
        #expect(coverage.tasks.map(\.matches) == [1, 1, 0, 0])
        #expect(coverage.files.map(\.status) == [.loaded])
    }

    @Test("a core without coverage() says so, and the run goes on")
    func coreWithoutCoverage() async throws {
        let workspace = try Workspace([
            "s.ndjson": """
            {"op":"register","id":1,"parent":null,"name":"__root__"}
            {"op":"register","id":2,"parent":1,"name":"master"}
            {"op":"appear","id":2}

            """
        ])
        let output = try await AnnaInProcess.run([
            "run", "--events", workspace.file("s.ndjson"), "--module", RepositoryFixtures.protocolModule.path,
            "--allow-read", RepositoryFixtures.folder.path, "--coverage",
        ])
        #expect(output.status == 0)
        #expect(output.stdoutLines == [#"{"action":"appeared","path":"/master"}"#])
        #expect(output.stderrLines == ["anna: no coverage: reading the coverage failed: type mismatch: the module's core has no coverage()"])
    }

    @Test("check --events replays the stream and prints the coverage after the patterns")
    func checkEvents() async throws {
        let workspace = try Workspace.shop()
        let output = try await AnnaInProcess.run(["check", "--module", workspace.file("module"), "--events", workspace.file("session.ndjson")])
        #expect(output.status == 0)
        #expect(output.stdoutLines.first == "index.js")
        #expect(output.stdoutLines.contains("index.js: loaded"))
        #expect(output.stdoutLines.contains("4 tasks (2 never fired), 1 task file (0 never loaded), 0 namespaces without a task file"))
        #expect(output.stdoutLines.last == "1 file, 4 patterns, 0 problems")
    }
}

@Suite("anna run: task locations, --watch", .timeLimit(.minutes(2)))
struct LocationWatchTests {
    @Test("a failed task's line names the task's file:line")
    func failureLocation() async throws {
        let workspace = try Workspace.shop()
        try workspace.writeSession("x.ndjson", appending: #"{"op":"event","id":3,"name":"explode"}"# + "\n")
        let output = try await workspace.runModule(events: "x.ndjson")
        let taskFile = workspace.file("module/task/index.js")
        let line = output.stderrLines.first ?? ""
        // The task's line is the match() call's; its column is the core's to choose.
        #expect(line.hasPrefix("\(workspace.file("x.ndjson")):10: error: task 'list/item/explode' (\(taskFile):3:"))
        #expect(line.contains(") on '/home/list/item' (explode): boom"))
    }

    @Test("--watch reloads a task file changed while standard input streams, and says so once")
    func watch() async throws {
        let workspace = try Workspace.shop()
        try workspace.write("module/task/index.js", "match('list/item/did-select', () => 'old');\n")
        let run = try StreamingRun(["run", "--events", "-", "--module", workspace.file("module"), "--watch"])
        let select = #"{"op":"event","id":3,"name":"did-select"}"# + "\n"
        #expect(try await run.send(try workspace.read("session.ndjson")) == #""old""#)
        try await StreamingRun.edit(workspace, "module/task/index.js", "match('list/item/did-select', () => 'new');\n")
        #expect(try await run.send(select) == #""new""#)
        let stderr = try await run.finish()
        #expect(run.process.terminationStatus == 0)
        #expect(stderr.split(separator: "\n").filter { $0.hasPrefix("reloaded") } == ["reloaded task/index.js"], "\(stderr)")
    }
}

/// Paths as the runtime names them (symbolic links resolved: `/tmp` may be a link).
enum LocalPath {
    static func real(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
