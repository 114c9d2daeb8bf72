// The task author's loop through the built binary: --strict and the error summary, --allow-read,
// folders of the wrong kind, init, --version and the notes that point at --coverage.
import Anna
import AnnaTestSupport
import Foundation
import Testing

@Suite("anna: strict runs and the error summary", .timeLimit(.minutes(2)))
struct StrictTests {
    /// The shop workspace with a stream whose lines make a task throw, a task file fail to
    /// load and an unknown node.
    static func failingWorkspace() throws -> Workspace {
        let workspace = try Workspace.shop()
        try workspace.write("module/task/Broken.js", "match('x/tap', () => 1);\nthrow new Error('broken on purpose');\n")
        try workspace.writeSession(
            "errors.ndjson",
            appending: """
                {"op":"event","id":3,"name":"explode"}
                {"op":"register","id":4,"parent":1,"name":"broken","namespace":"Broken"}
                {"op":"event","id":99,"name":"did-select"}

                """)
        return workspace
    }

    @Test("without --strict, errors are counted by kind in one line and the run succeeds")
    func summaryLine() async throws {
        let workspace = try Self.failingWorkspace()
        let output = try await workspace.runModule(events: "errors.ndjson")
        #expect(output.status == 0)
        #expect(output.stdoutLines.count == 2)
        #expect(output.stderrLinesWithoutNotes.count == 4)
        #expect(
            output.stderrLines.last
                == "anna: 3 errors (1 task failed, 1 task file failed to load, 1 node error); --strict makes them fail the run")
    }

    @Test("--strict fails run, snapshot and trace with exit 1 when the core reported an error", arguments: ["run", "snapshot", "trace"])
    func strictFails(command: String) async throws {
        let workspace = try Self.failingWorkspace()
        try workspace.write("all.trace.json", #"{"items": [{"action": "viewed", "screen": "/home"}]}"#)
        let extra = command == "trace" ? ["--expect", workspace.file("all.trace.json")] : []
        let arguments = [command, "--events", workspace.file("errors.ndjson"), "--module", workspace.file("module")] + extra
        let lenient = try await AnnaInProcess.run(arguments)
        #expect(lenient.status == 0)
        let strict = try await AnnaInProcess.run(arguments + ["--strict"])
        #expect(strict.status == 1)
        #expect(
            strict.stderrLines.last
                == "anna: 3 errors (1 task failed, 1 task file failed to load, 1 node error); failing the run (--strict)")
        let clean = try await AnnaInProcess.run(
            [command, "--events", workspace.file("session.ndjson"), "--module", workspace.file("module"), "--strict"] + extra)
        #expect(clean.status == 0)
        // The clean session never registers the node whose file is Broken.js.
        let neverLoaded = command == "snapshot" ? [] : ["anna: Broken.js never loaded: no node's namespace asked for it"]
        #expect(clean.stderrLinesWithoutNotes == neverLoaded)
    }
}

@Suite("anna: modules, folders and reading outside them", .timeLimit(.minutes(2)))
struct ModuleFolderTests {
    @Test("--tasks given a module folder, or --module given a folder without index.js, exits 66 suggesting the other option")
    func wrongKindOfFolder() async throws {
        let workspace = try Workspace.shop()
        let module = workspace.file("module")
        try workspace.write("typed/index.ts", "module.exports = require('anna').configured({ task: __dirname + '/task' });\n")
        try workspace.write("typed/task/index.ts", "match('a/tap', (): number => 1);\n")
        // Named by the index file it has.
        for (folder, index) in [(module, "index.js"), (workspace.file("typed"), "index.ts")] {
            let tasks = try await AnnaInProcess.run(["run", "--events", workspace.file("session.ndjson"), "--tasks", folder])
            #expect(tasks.status == 66)
            #expect(
                tasks.stderrLines == [
                    "anna: \(folder) is an analytics module (\(index) and task/), not a task folder; use --module \(folder), or --tasks \(folder)/task"
                ])
        }
        try workspace.write("bare/Screen.js", "match('a/tap', () => 1);\n")
        let bare = workspace.file("bare")
        let noIndex = try await AnnaInProcess.run(["run", "--events", workspace.file("session.ndjson"), "--module", bare])
        #expect(noIndex.status == 66)
        #expect(
            noIndex.stderrLines == [
                "anna: \(bare) is not an analytics module: it has no index.js (a module's index.js exports "
                    + "require('anna').configured({ task: __dirname + '/task' })); use --tasks \(bare) to run a task folder"
            ])
        let taskFolder = try await AnnaInProcess.run(["run", "--events", workspace.file("session.ndjson"), "--module", module + "/task"])
        #expect(taskFolder.status == 66)
        #expect(
            taskFolder.stderrLines.first?.hasPrefix(
                "anna: cannot load analytics module \(module)/task: ReferenceError: Can't find variable: match (at \(module)/task/index.js:1") == true
        )
        #expect(
            taskFolder.stderrLines.last == "anna: \(module)/task looks like a task folder (its index.js calls match()); use --tasks \(module)/task")
    }

    /// The layout of an iOS app's resources: the module and the core as sibling bundles.
    static func iOSLayout() throws -> Workspace {
        let workspace = try Workspace([
            "app/analytics.bundle/index.js": "module.exports = require('../anna.bundle').configured({ task: __dirname + '/task' });\n",
            "app/analytics.bundle/task/index.js": "match('/home/ana-appeared', (node) => ({ viewed: node.path }));\n",
            "session.ndjson": """
            {"op":"register","id":1,"parent":null,"name":"__root__"}
            {"op":"register","id":2,"parent":1,"name":"home"}
            {"op":"appear","id":2}

            """,
        ])
        try FileManager.default.copyItem(at: BundledCore.folderURL, to: workspace.url.appendingPathComponent("app/anna.bundle"))
        return workspace
    }

    @Test("a module beside its core runs with --allow-read of their folder, and is refused with that suggestion without it")
    func allowRead() async throws {
        let workspace = try Self.iOSLayout()
        let app = workspace.file("app")
        let arguments = ["run", "--events", workspace.file("session.ndjson"), "--module", workspace.file("app/analytics.bundle")]
        let allowed = try await AnnaInProcess.run(arguments + ["--allow-read", app])
        #expect(allowed.status == 0)
        #expect(allowed.stderr == "")
        #expect(allowed.stdoutLines == [#"{"viewed":"/home"}"#])
        let refused = try await AnnaInProcess.run(arguments)
        #expect(refused.status == 66)
        #expect(refused.stderrLines.count == 2)
        #expect(
            refused.stderrLines.first?.contains(
                "Access denied: module '../anna.bundle' from \(workspace.file("app/analytics.bundle/index.js")):1 resolves to '\(app)/anna.bundle'")
                == true)
        #expect(
            refused.stderrLines.last
                == "anna: modules may read only below the module's folder and the core; add --allow-read \(app)/anna.bundle to let them read there")
    }
}

@Suite("anna init, --version and the zero-result note", .timeLimit(.minutes(2)))
struct InitVersionTests {
    @Test("init scaffolds a module that runs on its sample session at once")
    func initThenRun() async throws {
        let workspace = try Workspace()
        let folder = workspace.file("shop")
        let created = try await AnnaProcess.run(["init", folder])
        #expect(created.status == 0)
        #expect(created.stdoutLines.first == "created \(folder)/index.js")
        #expect(
            created.stdoutLines.contains(
                "created \(folder).session.ndjson (a sample session, beside the module: apps bundle the module folder)"))
        #expect(created.stdoutLines.last == "next: anna run --events \(folder).session.ndjson --module \(folder)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/session.ndjson"))
        #expect(try workspace.read("shop/index.js").contains("require('anna').configured({ task: __dirname + '/task' })"))
        #expect(try workspace.read("shop/jsconfig.json").contains(#""anna": ["./types/anna"]"#))
        let typings = BundledCore.folderURL.appendingPathComponent("index.d.ts")
        #expect(try workspace.read("shop/types/anna/index.d.ts") == String(contentsOf: typings, encoding: .utf8))
        #expect(created.stdoutLines.contains("created \(folder)/types/anna/index.d.ts"))
        let run = try await AnnaInProcess.run(["run", "--events", folder + ".session.ndjson", "--module", folder, "--strict"])
        #expect(run.status == 0)
        #expect(run.stdoutLines == [#"{"action":"selected","item":4,"title":"Boots"}"#])
        #expect(run.stderr == "")
    }

    @Test("init refuses a folder that is not empty, with exit 73")
    func initRefusesNonEmpty() async throws {
        let workspace = try Workspace(["full/notes.txt": "mine\n"])
        let output = try await AnnaProcess.run(["init", workspace.file("full")])
        #expect(output.status == 73)
        #expect(output.stderrLines == ["anna: \(workspace.file("full")) is not empty (1 entry); anna init needs a new or empty folder"])
        #expect(try workspace.read("full/notes.txt") == "mine\n")
    }

    @Test("init refuses an empty name (64) and writes nothing in the current folder")
    func initRefusesEmptyName() throws {
        let workspace = try Workspace(["index.js": "mine\n"])
        let process = Process()
        process.executableURL = AnnaProcess.executable
        process.arguments = ["init", ""]
        process.currentDirectoryURL = URL(fileURLWithPath: workspace.file("."))
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 64)
        #expect(stderr.contains("anna init needs a folder name"))
        #expect(try workspace.read("index.js") == "mine\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.file(".")) == ["index.js"])
    }

    @Test("init never replaces a file: an existing sample session stops it before anything is written (73)")
    func initKeepsExistingSession() async throws {
        let workspace = try Workspace(["shop.session.ndjson": "my recording\n"])
        let output = try await AnnaProcess.run(["init", workspace.file("shop")])
        #expect(output.status == 73)
        #expect(
            output.stderrLines == [
                "anna: \(workspace.file("shop")).session.ndjson exists; anna init never replaces a file (move it, or choose another folder name)"
            ])
        #expect(try workspace.read("shop.session.ndjson") == "my recording\n")
        #expect(!FileManager.default.fileExists(atPath: workspace.file("shop")))
    }

    @Test("--version prints the version; --help lists the exit codes")
    func version() async throws {
        let output = try await AnnaInProcess.run(["--version"])
        #expect(output.status == 0)
        #expect(output.stdoutLines == ["0.4.0"])
        let help = try await AnnaInProcess.run(["--help"])
        #expect(help.stdout.contains("Exit codes:"))
        #expect(help.stdout.contains("  73  a file cannot be written: anna init into a folder that is not empty,"))
    }

    @Test("a run where no task produced a result says so and suggests --coverage")
    func zeroResultNote() async throws {
        let workspace = try Workspace.shop()
        try workspace.write("module/task/index.js", "match('/home/ana-apeared', () => 1);\n")  // a typo
        let output = try await workspace.runModule()
        #expect(output.status == 0)
        #expect(output.stdout == "")
        #expect(output.stderrLines.last?.hasPrefix("anna: no task produced a result (7 operations replayed)") == true)
        #expect(output.stderrLines.last?.hasSuffix("--coverage shows which tasks loaded and ran") == true)
    }
}

@Suite("anna check loads as anna run does", .timeLimit(.minutes(2)))
struct CheckLoaderTests {
    @Test("task files may require the module's own helpers and node_modules packages")
    func helpersAndPackages() async throws {
        let workspace = try Workspace([
            "module/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' });\n",
            "module/lib/helpers.js": "exports.label = (node) => 'at ' + node.path;\n",
            "module/node_modules/shout/index.js": "module.exports = (text) => text.toUpperCase();\n",
            "module/task/index.js": """
            const { label } = require('../lib/helpers');
            const shout = require('shout');
            match('/home/ana-appeared', (node) => shout(label(node)));

            """,
            "session.ndjson": """
            {"op":"register","id":1,"parent":null,"name":"__root__"}
            {"op":"register","id":2,"parent":1,"name":"home"}
            {"op":"appear","id":2}

            """,
        ])
        let check = try await AnnaInProcess.run(["check", "--module", workspace.file("module")])
        #expect(check.stderr == "")
        #expect(check.status == 0)
        #expect(check.stdoutLines == ["index.js", "  3:\t/home/ana-appeared", "1 file, 1 pattern, 0 problems"])
        let run = try await workspace.runModule()
        #expect(run.stdoutLines == [#""AT /HOME""#])
    }

    @Test("a syntax error in the module's index.js fails check with file:line")
    func moduleSyntaxError() async throws {
        let workspace = try Workspace([
            "module/index.js": "// the module\nmodule.exports = require('anna').configured({ task: __dirname + '/task' ));\n// end\n",
            "module/task/index.js": "match('a/tap', () => 1);\n",
        ])
        let output = try await AnnaInProcess.run(["check", "--module", workspace.file("module")])
        #expect(output.status == 1)
        #expect(output.stdoutLines == ["index.js", "  1:\ta/tap", "1 file, 1 pattern, 1 problem"])
        #expect(output.stderrLines.count == 1)
        #expect(output.stderrLines.first?.hasPrefix("\(workspace.file("module/index.js")):2: SyntaxError: ") == true)
    }

    @Test("check reads a module beside its core with --allow-read, and suggests it without")
    func allowRead() async throws {
        let workspace = try ModuleFolderTests.iOSLayout()
        let module = workspace.file("app/analytics.bundle")
        let allowed = try await AnnaInProcess.run(["check", "--module", module, "--allow-read", workspace.file("app")])
        #expect(allowed.status == 0)
        #expect(allowed.stdoutLines == ["index.js", "  1:\t/home/ana-appeared", "1 file, 1 pattern, 0 problems"])
        let refused = try await AnnaInProcess.run(["check", "--module", module])
        #expect(refused.status == 1)
        #expect(refused.stderrLines.first?.hasPrefix("\(module)/index.js:1: Error: Access denied: module '../anna.bundle' from ") == true)
        #expect(refused.stderrLines.last?.hasPrefix("anna: modules may read only below the module's folder and the core; add --allow-read") == true)
    }
}

@Suite("anna run: result warnings", .timeLimit(.minutes(2)))
struct ResultWarningTests {
    @Test("a result that loses a function is delivered with a warning line that --strict does not count")
    func warningIsNotFailure() async throws {
        let workspace = try Workspace([
            "tasks/index.js": "match('tap', () => ({ ok: 1, onTap: () => 2 }));\n",
            "s.ndjson": """
            {"op":"register","id":1,"parent":null,"name":"__root__"}
            {"op":"event","id":1,"name":"tap"}

            """,
        ])
        let output = try await AnnaInProcess.run(["run", "--events", workspace.file("s.ndjson"), "--tasks", workspace.file("tasks"), "--strict"])
        #expect(output.status == 0)
        #expect(output.stdoutLines == [#"{"ok":1}"#])
        #expect(output.stderrLines.count == 1)
        #expect(output.stderrLines.first?.hasPrefix("\(workspace.file("s.ndjson")):2: warning: ") == true)
        #expect(output.stderrLines.first?.contains("returned a function at .onTap") == true)
    }
}
