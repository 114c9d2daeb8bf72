import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// Task files written in TypeScript, through `anna`: the same results as JavaScript, and every
/// place an error report gives in the `.ts` file.
@Suite("TypeScript task files", .timeLimit(.minutes(5)))
struct TypeScriptTaskTests {
    static let demo = RepositoryFixtures.demo

    @Test("the demo module written in TypeScript gives exactly the JavaScript module's results")
    func demoResults() async throws {
        let output = try await AnnaInProcess.run([
            "run", "--events", Self.demo.appendingPathComponent("session.ndjson").path, "--module",
            Self.demo.appendingPathComponent("module-ts").path,
        ])
        #expect(output.status == 0)
        #expect(output.stderr == "")
        #expect(output.stdout == (try String(contentsOf: Self.demo.appendingPathComponent("expected-results.ndjson"), encoding: .utf8)))
    }

    @Test("trace, snapshot, replay and report on the TypeScript demo module give what they give on the JavaScript one")
    func otherCommands() async throws {
        let session = Self.demo.appendingPathComponent("session.ndjson").path
        let trace = Self.demo.appendingPathComponent("session.trace.json").path
        let modules = ["module", "module-ts"].map { Self.demo.appendingPathComponent($0).path }
        var outputs: [[String]] = []
        for module in modules {
            let traced = try await AnnaInProcess.run(["trace", "--events", session, "--module", module, "--expect", trace])
            let snapshot = try await AnnaInProcess.run(["snapshot", "--events", session, "--module", module, "--format", "json"])
            #expect(traced.status == 0 && snapshot.status == 0, "\(traced.stderr)\(snapshot.stderr)")
            outputs.append([traced.stdout, snapshot.stdout])
        }
        // The same tree and trace; the snapshot names each task's file, `.ts` for the TypeScript one.
        #expect(outputs[1][1].contains(#""file":"HomeViewController.ts""#))
        outputs[1][1] = outputs[1][1].replacingOccurrences(of: #".ts""#, with: #".js""#)
        #expect(outputs[0] == outputs[1])
        #expect(outputs[1].first?.hasSuffix("3 passed, 0 failed\n") == true)

        let folder = try TemporaryFolder(["sessions/demo.ndjson": try String(contentsOfFile: session, encoding: .utf8)])
        let replay = try await AnnaInProcess.run(
            ["replay", folder.file("sessions"), "--module", modules[1], "--out", folder.file("out"), "--jobs", "1"])
        #expect(replay.status == 0, "\(replay.stderr)")
        let expected = try String(contentsOf: Self.demo.appendingPathComponent("expected-results.ndjson"), encoding: .utf8)
        #expect(try folder.read("out/demo.ndjson") == expected)

        let report = try await AnnaInProcess.run([
            "report", "--events", session, "--module", modules[1], "-o", folder.file("r.html"), "--expect", trace,
        ])
        #expect(report.status == 0, "\(report.stderr)")
        let html = try folder.read("r.html")
        let start = try #require(html.range(of: "<script type=\"application/json\" id=\"anna-report-data\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let data = try JSONValue(parsing: String(html[start.upperBound..<end.lowerBound]))
        #expect(data["stats"]?["results"] == 1209)
        #expect(data["trace"]?.stringValue?.hasSuffix("3 passed, 0 failed") == true)
        #expect(html.contains("HomeViewController.ts") && !html.contains(".ts.js"), "the .ts files by their names")
    }

    @Test("a cache folder that cannot be written is one warning; the results are all there")
    func unwritableCache() async throws {
        let session = #"{"op":"register","id":1,"parent":null,"name":"__root__"}"# + "\n" + #"{"op":"event","id":1,"name":"tap"}"# + "\n"
        let workspace = try Workspace(["tasks/index.ts": Self.tasks, "session.ndjson": session, "cache": "a file\n"])
        var environment = ProcessInfo.processInfo.environment
        environment["ANNA_CACHE_DIR"] = workspace.file("cache")
        let output = try await AnnaProcess.run(
            ["run", "--events", workspace.file("session.ndjson"), "--tasks", workspace.file("tasks")], environment: environment)
        #expect(output.status == 0 && output.stdoutLines == ["1"], "\(output.stderr)")
        let warnings = output.stderrLines.filter { $0.hasPrefix("anna: warning: the TypeScript cache ") }
        #expect(warnings.count == 1, "\(output.stderr)")
        #expect(warnings.first?.hasSuffix("make it writable, or set ANNA_CACHE_DIR to another folder (empty turns the cache off)") == true)
    }

    static let tasks = """
        interface Row { id: number; title?: string }
        const rows: Row[] = [{ id: 1 }];
        async function later(value: number): Promise<number> {
          return value * 2;
        }
        match('tap', (): number => rows[0].id);
        match('boom', (): string => {
          const row: Row | undefined = rows[0];
          throw new Error(`no title for ${row?.id}`);
        });
        match('wait', async (): Promise<number> => later(21));
        match('spin', (): void => { for (;;) {} });

        """

    static let session = """
        {"op":"register","id":1,"parent":null,"name":"__root__"}
        {"op":"event","id":1,"name":"tap"}
        {"op":"event","id":1,"name":"boom"}
        {"op":"event","id":1,"name":"wait"}
        {"op":"event","id":1,"name":"spin"}
        {"op":"event","id":1,"name":"tap"}

        """

    @Test("a thrown error, a runaway loop and the task places name .ts lines and columns; async tasks deliver")
    func errorPlaces() async throws {
        let workspace = try Workspace(["tasks/index.ts": Self.tasks, "s.ndjson": Self.session])
        let output = try await AnnaInProcess.run(
            ["run", "--events", workspace.file("s.ndjson"), "--tasks", workspace.file("tasks"), "--time-limit", "0.5", "--coverage"])
        let file = LocalPath.real(workspace.file("tasks/index.ts"))
        #expect(output.stdoutLines == ["1", "42", "1"])
        let errors = output.stderrLines.filter { $0.contains("error:") }
        #expect(errors.count == 2)
        #expect(errors.first?.contains("task 'boom' (\(file):7:6)") == true, "\(errors)")
        // Where JavaScriptCore puts a `new Error(…)`: its `(`, as in the same JavaScript line.
        #expect(errors.first?.contains("no title for 1 (thrown at \(file):9:18)") == true, "\(errors)")
        #expect(errors.last?.contains("task 'spin' (\(file):12:6) on the root (spin) ran longer than 0.5 s") == true, "\(errors)")
        #expect(!output.stderr.contains(".ts.js"))
        #expect(output.stderrLines.contains("  7:\tboom\t1 match, 1 failed"), "\(output.stderrLines)")
        #expect(output.stderrLines.contains("  12:\tspin\t1 match, 1 failed"), "\(output.stderrLines)")
    }

    @Test("a task stopped at the memory limit is named at its .ts line and column")
    func memoryLimitPlace() async throws {
        let tasks = """
            interface Heap { kept: number[][] }
            const heap: Heap = { kept: [] };
            match('grow', (): void => { for (;;) heap.kept.push(new Array<number>(65536).fill(heap.kept.length)); });
            match('tap', (): number => 1);

            """
        let session = """
            {"op":"register","id":1,"parent":null,"name":"__root__"}
            {"op":"event","id":1,"name":"grow"}
            {"op":"event","id":1,"name":"tap"}

            """
        let workspace = try Workspace(["tasks/index.ts": tasks, "s.ndjson": session])
        let output = try await AnnaInProcess.run(
            ["run", "--events", workspace.file("s.ndjson"), "--tasks", workspace.file("tasks"), "--memory-limit", "64"])
        let file = LocalPath.real(workspace.file("tasks/index.ts"))
        #expect(output.stdoutLines == ["1"], "the engine goes on after the stop")
        let stop = output.stderrLines.first { $0.contains("past the limit of 64 MB") }
        #expect(stop?.contains("task 'grow' (\(file):3:6)") == true, "\(output.stderrLines)")
        #expect(!output.stderr.contains(".ts.js"))
    }

    @Test("a syntax error stops the file at its .ts line and column; anna check names it too")
    func syntaxError() async throws {
        let workspace = try Workspace([
            "tasks/index.ts": "match('tap', () => 1);\nconst broken: number = (1 + ;\n", "s.ndjson": Self.session,
        ])
        let file = LocalPath.real(workspace.file("tasks/index.ts"))
        let run = try await AnnaInProcess.run(["run", "--events", workspace.file("s.ndjson"), "--tasks", workspace.file("tasks")])
        #expect(run.stderr.contains("\(file):2:29"), "\(run.stderr)")
        #expect(run.stderr.contains("SyntaxError") || run.stderr.contains("Expression expected"), "\(run.stderr)")
        let check = try await AnnaInProcess.run(["check", "--tasks", workspace.file("tasks")])
        #expect(check.status != 0)
        #expect(check.stdout.contains("index.ts:2") || check.stderr.contains("index.ts:2"), "\(check.stdout)\(check.stderr)")
    }

    @Test("init --typescript writes a module that runs, and check --typecheck reports type errors at file:line:column")
    func initAndTypecheck() async throws {
        let workspace = try Workspace()
        let folder = workspace.file("shop")
        let created = try await AnnaInProcess.run(["init", "--typescript", folder])
        #expect(created.status == 0)
        #expect(created.stdoutLines.contains("created \(folder)/tsconfig.json"))
        let run = try await AnnaInProcess.run(["run", "--events", folder + ".session.ndjson", "--module", folder, "--strict"])
        #expect(run.stdoutLines == [#"{"action":"selected","item":4,"title":"Boots"}"#])
        #expect(run.stderr == "")
        let clean = try await AnnaInProcess.run(["check", "--module", folder, "--typecheck"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdoutLines.last == "1 file, 1 pattern, 0 problems")

        try workspace.write(
            "shop/task/index.ts", try workspace.read("shop/task/index.ts") + "console.log('loaded');\nconst count: number = 'three';\n")
        let typed = try await AnnaInProcess.run(["check", "--module", folder, "--typecheck"])
        #expect(typed.status == 1)
        let file = LocalPath.real(workspace.file("shop/task/index.ts"))
        #expect(typed.stderrLines == ["\(file):18:7: error TS2322: Type 'string' is not assignable to type 'number'."])
        // Without --typecheck the file loads: types are not checked at run time.
        let loads = try await AnnaInProcess.run(["check", "--module", folder])
        #expect(loads.status == 0, "\(loads.stderr)")
    }

    @Test("--watch reloads an edited .ts task file; only the edited file is compiled again")
    func watch() async throws {
        let workspace = try Workspace([
            "tasks/index.ts": "import { label } from './label';\nmatch('tap', (): string => label('old'));\n",
            "tasks/label.ts": "export const label = (text: string): string => `<${text}>`;\n",
        ])
        let cache = workspace.file("cache")
        let run = try StreamingRun(
            ["run", "--events", "-", "--tasks", workspace.file("tasks"), "--watch"], environment: ["ANNA_CACHE_DIR": cache])
        let tap = #"{"op":"event","id":1,"name":"tap"}"# + "\n"
        #expect(try await run.send(#"{"op":"register","id":1,"parent":null,"name":"__root__"}"# + "\n" + tap) == #""<old>""#)
        let compiled = { try FileManager.default.contentsOfDirectory(atPath: cache + "/typescript").count }
        #expect(try compiled() == 2)
        try await StreamingRun.edit(workspace, "tasks/index.ts", "import { label } from './label';\nmatch('tap', (): string => label('new'));\n")
        #expect(try await run.send(tap) == #""<new>""#)
        #expect(try compiled() == 3, "the edited file's new text, and nothing else, was compiled")
        // A newer time with the same text reloads the file but compiles nothing: the cache is by content.
        try await StreamingRun.edit(workspace, "tasks/index.ts", try workspace.read("tasks/index.ts"))
        #expect(try await run.send(tap) == #""<new>""#)
        let stderr = try await run.finish()
        #expect(run.process.terminationStatus == 0)
        #expect(stderr.split(separator: "\n").filter { $0.hasPrefix("reloaded") }.count == 2, "\(stderr)")
        #expect(try compiled() == 3)
    }

    @Test("anna build writes a JavaScript copy that runs alike; a syntax error writes nothing")
    func build() async throws {
        let workspace = try Workspace()
        let built = workspace.file("built")
        let output = try await AnnaInProcess.run(["build", Self.demo.appendingPathComponent("module-ts").path, "--out", built])
        #expect(output.status == 0)
        #expect(output.stdoutLines == ["built \(built): 6 files, 6 compiled from TypeScript"])
        #expect(try workspace.read("built/task/events.js").contains("//# sourceMappingURL=data:application/json;base64,"))
        let run = try await AnnaInProcess.run(["run", "--events", Self.demo.appendingPathComponent("session.ndjson").path, "--module", built])
        #expect(run.stdout == (try String(contentsOf: Self.demo.appendingPathComponent("expected-results.ndjson"), encoding: .utf8)))

        try workspace.write("broken/task/index.ts", "match('tap', () => 1);\nlet n: number = ;\n")
        let failed = try await AnnaInProcess.run(["build", workspace.file("broken"), "--out", workspace.file("broken-out")])
        #expect(failed.status == 1)
        #expect(
            failed.stderrLines.first?.hasPrefix("\(workspace.file("broken/task/index.ts")):2:17: SyntaxError: Expression expected. (TS1109)") == true)
        #expect(!FileManager.default.fileExists(atPath: workspace.file("broken-out")))
    }

    @Test("--typecheck without tsc says how to install it, and fails the check")
    func typecheckWithoutTsc() async throws {
        let workspace = try Workspace(["tasks/index.ts": "match('tap', (): number => 1);\n"])
        let output = try await AnnaProcess.run(
            ["check", "--tasks", workspace.file("tasks"), "--typecheck"], environment: ["ANNA_TSC": workspace.file("no-tsc")])
        #expect(output.status == 1)
        #expect(output.stderr.contains("--typecheck needs TypeScript's tsc, which is not installed: apt-get install node-typescript"))
    }

    @Test("a namespace with both Name.js and Name.ts is an error naming both")
    func bothFiles() async throws {
        let workspace = try Workspace([
            "tasks/index.js": "", "tasks/Screen.js": "match('tap', () => 'js');\n", "tasks/Screen.ts": "match('tap', () => 'ts');\n",
            "s.ndjson": """
            {"op":"register","id":1,"parent":null,"name":"__root__"}
            {"op":"register","id":2,"parent":1,"name":"screen","namespace":"Screen"}
            {"op":"event","id":2,"name":"tap"}

            """,
        ])
        let output = try await AnnaInProcess.run(["run", "--events", workspace.file("s.ndjson"), "--tasks", workspace.file("tasks")])
        #expect(output.stdout == "")
        #expect(output.stderr.contains("both Screen.js and Screen.ts are task files for one name: keep one of them"), "\(output.stderr)")
    }
}
