// One suite for `anna run`, kept whole: its cases share the shop workspace and read best together.
import AnnaTestSupport
import Foundation
import Testing

@Suite("anna run", .timeLimit(.minutes(2)))
struct RunCommandTests {
    @Test("prints each result as a line of compact JSON, in order; without --coverage, tasks that never ran are named in one line")
    func results() async throws {
        let workspace = try Workspace.shop()
        let output = try await workspace.runModule()
        #expect(output.status == 0)
        #expect(
            output.stdoutLines == [
                #"{"action":"viewed","screen":"/home"}"#,
                #"{"action":"selected","item":4,"title":"Boots"}"#,
            ])
        #expect(output.stderrLinesWithoutNotes == [])
        #expect(
            output.stderrLines.first?.hasPrefix("anna: 2 of 4 tasks never ran ('list/item/explode' at \(workspace.file("module/task/index.js")):3")
                == true)
        #expect(output.stderrLines.first?.hasSuffix(" and 1 more); --coverage lists them") == true)
        #expect(output.stderrLines.count == 1)
    }

    @Test("--meta wraps each result with task, path, event and its event's time; --tasks uses the bundled core")
    func metaAndTasks() async throws {
        let workspace = try Workspace.shop()
        let output = try await AnnaInProcess.run([
            "run", "--events", workspace.file("session.ndjson"), "--tasks", workspace.file("module/task"), "--meta",
        ])
        #expect(output.status == 0)
        #expect(
            output.stdoutLines == [
                #"{"result":{"action":"viewed","screen":"/home"},"task":"/home/ana-appeared","path":"/home","event":"ana-appeared","time":1004}"#,
                #"{"result":{"action":"selected","item":4,"title":"Boots"},"task":"list/item/did-select","path":"/home/list/item","event":"did-select","time":1006}"#,
            ])
    }

    @Test("reads standard input as it arrives")
    func streamingInput() throws {
        let workspace = try Workspace.shop()
        let process = Process()
        process.executableURL = AnnaProcess.executable
        process.arguments = ["run", "--events", "-", "--module", workspace.file("module")]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let lines = try workspace.read("session.ndjson").split(separator: "\n").map { $0 + "\n" }
        for line in lines.prefix(7) { input.fileHandleForWriting.write(Data(line.utf8)) }
        // The first result must come out while standard input is still open.
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        #expect(String(decoding: received, as: UTF8.self) == #"{"action":"viewed","screen":"/home"}"# + "\n")
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test("a malformed line stops the run with 65 after the results so far, naming file and line")
    func malformedLine() async throws {
        let workspace = try Workspace.shop()
        try workspace.writeSession(
            "bad.ndjson",
            appending: """
                {"op":"teleport","id":3}
                {"op":"event","id":3,"name":"did-select","time":1007}

                """)
        let output = try await workspace.runModule(events: "bad.ndjson")
        #expect(output.status == 65)
        #expect(output.stdoutLines.count == 2)
        #expect(
            output.stderrLinesWithoutNotes == [
                "\(workspace.file("bad.ndjson")):10: unknown op 'teleport' (expected register, event, update, appear, disappear, deregister, snapshot, version)"
            ])
    }

    @Test(
        "every kind of malformed line is reported",
        arguments: [
            (#"{"op":"event","id":3"#, "invalid JSON at column 21: expected ',' or '}' in an object"),
            (#"["op"]"#, "a line must be a JSON object"),
            (#"{"id":3}"#, "missing field 'op'"),
            (#"{"op":"event","id":3}"#, "missing field 'name'"),
            (#"{"op":"event","id":"three","name":"x"}"#, #"field 'id' must be a node ID (an integer or [owner, key, …]), got "three""#),
            (#"{"op":"register","id":4,"parent":1,"name":"x","index":1.5}"#, "field 'index' must be an integer, got 1.5"),
            (#"{"op":"event","id":3,"name":"x","properties":[1]}"#, "field 'properties' must be an object, got [1]"),
            (#"{"op":"event","id":3,"name":"x","time":"now"}"#, #"field 'time' must be a number, got "now""#),
            (#"{"op":"event","id":3,"name":"x","extra":1}"#, "unknown field 'extra' for op 'event'"),
            (#"{"op":"version","version":2}"#, "stream version 2 is newer than this reader (1)"),
        ])
    func malformedKinds(line: String, message: String) async throws {
        let workspace = try Workspace.shop()
        try workspace.write("bad.ndjson", line + "\n")
        let output = try await workspace.runModule(events: "bad.ndjson")
        #expect(output.status == 65)
        #expect(output.stderrLines == ["\(workspace.file("bad.ndjson")):1: \(message)"])
    }

    @Test("--keep-going skips malformed lines and counts them; core errors continue with their line")
    func keepGoing() async throws {
        let workspace = try Workspace.shop()
        try workspace.writeSession(
            "mixed.ndjson",
            appending: """
                not json
                {"op":"event","id":99,"name":"did-select"}
                {"op":"event","id":3,"name":"explode"}
                {"op":"event","id":3,"name":"did-select","time":1009}

                """)
        let output = try await workspace.runModule(events: "mixed.ndjson", ["--keep-going"])
        let file = workspace.file("mixed.ndjson")
        #expect(output.status == 0)
        #expect(output.stdoutLines.count == 3)
        #expect(
            output.stderrLinesWithoutNotes.map(withoutTaskLocations) == [
                "\(file):10: invalid JSON at column 2: invalid literal, expected 'null'",
                "\(file):11: error: recording 'did-select' on node 99 failed: NodeError: Cannot record event 'did-select' on node 99: the node is not registered.",
                "\(file):12: error: task 'list/item/explode' on '/home/list/item' (explode): boom",
                "anna: 13 lines, 10 operations, 3 results, 1 malformed line skipped",
                "anna: 2 errors (1 task failed, 1 node error); --strict makes them fail the run",
            ])
    }

    @Test("a stream of a newer version stops the run even with --keep-going: no line of it is guessed at")
    func newerVersionStopsKeepGoing() async throws {
        let workspace = try Workspace.shop()
        try workspace.write("v2.ndjson", #"{"op":"version","version":2}"# + "\n" + (try workspace.read("session.ndjson")))
        let output = try await workspace.runModule(events: "v2.ndjson", ["--keep-going"])
        #expect(output.status == 65)
        #expect(output.stdout.isEmpty, "no result of a stream this reader does not know")
        #expect(output.stderrLines.first == "\(workspace.file("v2.ndjson")):1: stream version 2 is newer than this reader (1)")
    }

    @Test("console output of tasks goes to standard error, or to --console FILE")
    func console() async throws {
        let workspace = try Workspace.shop()
        try workspace.writeSession("log.ndjson", appending: #"{"op":"event","id":3,"name":"log"}"# + "\n")
        let toStderr = try await workspace.runModule(events: "log.ndjson")
        #expect(toStderr.stdoutLines.count == 2)
        #expect(toStderr.stderrLinesWithoutNotes == ["logged from /home/list/item"])
        let toFile = try await workspace.runModule(events: "log.ndjson", ["--console", workspace.file("console.txt")])
        #expect(toFile.stderrLinesWithoutNotes == [])
        #expect(try workspace.read("console.txt") == "logged from /home/list/item\n")
    }

    @Test("missing files and unreadable modules exit 66 with the path")
    func missingInputs() async throws {
        let workspace = try Workspace.shop()
        try workspace.write("broken/index.js", "module.exports = ;\n")
        let noStream = try await workspace.runModule(events: "none.ndjson")
        #expect(noStream.status == 66)
        #expect(noStream.stderrLines == ["anna: no such event stream: \(workspace.file("none.ndjson"))"])
        let noModule = try await workspace.runModule(module: "nowhere")
        #expect(noModule.status == 66)
        #expect(noModule.stderrLines == ["anna: no such module: \(workspace.file("nowhere"))"])
        let broken = try await workspace.runModule(module: "broken")
        #expect(broken.status == 66)
        #expect(broken.stderr.hasPrefix("anna: cannot load analytics module \(workspace.file("broken")): SyntaxError:"))
        #expect(broken.stderr.contains("(at \(workspace.file("broken/index.js")):1"))
    }

    @Test("a stream snapshot op prints the tree to standard error")
    func snapshotOp() async throws {
        let workspace = try Workspace.shop()
        try workspace.writeSession("snap.ndjson", appending: #"{"op":"snapshot"}"# + "\n")
        let output = try await workspace.runModule(events: "snap.ndjson")
        #expect(output.status == 0)
        #expect(output.stdoutLines.count == 2)
        #expect(output.stderr.hasPrefix(#"<__root__ id="1" class="ana-node" createdAt="1000">"#))
    }

    @Test("--help of every command shows examples", arguments: ["run", "snapshot", "trace", "check", "init"])
    func help(command: String) async throws {
        let output = try await AnnaInProcess.run([command, "--help"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("Examples:"))
        #expect(output.stdout.contains("anna \(command)"))
    }

    @Test("bad arguments exit 64")
    func badArguments() async throws {
        let output = try await AnnaInProcess.run(["run", "--events", "x.ndjson"])
        #expect(output.status == 64)
        #expect(output.stderr.contains("Give exactly one of --module DIR and --tasks DIR."))
    }
}

@Suite("anna run: debug mode, time limit, progress", .timeLimit(.minutes(2)))
struct RunCommandMoreTests {
    @Test("--debug re-requires a namespace's task file at every registration")
    func debugReloads() async throws {
        let workspace = try Workspace([
            "module/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' });\n",
            "module/task/index.js": "",
            "module/task/Screen.js": "console.log('Screen.js loaded'); match('screen/tap', (node) => node.index);\n",
            "s.ndjson": """
            {"op":"register","id":1,"parent":null,"name":"__root__"}
            {"op":"register","id":2,"parent":1,"name":"screen","index":0,"namespace":"Screen"}
            {"op":"register","id":3,"parent":1,"name":"screen","index":1,"namespace":"Screen"}
            {"op":"event","id":3,"name":"tap"}

            """,
        ])
        let plain = try await workspace.runModule(events: "s.ndjson")
        #expect(plain.stdoutLines == ["1"])
        #expect(plain.stderrLines == ["Screen.js loaded"])
        let debug = try await workspace.runModule(events: "s.ndjson", ["--debug"])
        #expect(debug.stdoutLines == ["1"], "the reloaded file's tasks replace the old ones instead of doubling them")
        #expect(debug.stderrLines == ["Screen.js loaded", "Screen.js loaded"])
    }

    @Test(
        "--time-limit stops a runaway task; the run goes on with the next line; the stop is an error --strict fails on",
        arguments: [false, true])
    func timeLimit(strict: Bool) async throws {
        let workspace = try Workspace([
            "tasks/index.js": "match('spin', () => { for (;;) {} }); match('tap', () => 'after');\n",
            "s.ndjson": """
            {"op":"register","id":1,"parent":null,"name":"__root__"}
            {"op":"event","id":1,"name":"spin"}
            {"op":"event","id":1,"name":"tap"}

            """,
        ])
        let output = try await AnnaInProcess.run(
            ["run", "--events", workspace.file("s.ndjson"), "--tasks", workspace.file("tasks"), "--time-limit", "0.2"]
                + (strict ? ["--strict"] : []))
        #expect(output.status == (strict ? 1 : 0))
        #expect(output.stdoutLines == [#""after""#])
        // The stop names the task that was running, with its place.
        let taskFile = LocalPath.real(workspace.file("tasks/index.js"))
        #expect(
            output.stderrLines.first
                == "\(workspace.file("s.ndjson")):2: error: recording 'spin' on node 1 failed: execution time limit exceeded: task 'spin' (\(taskFile):1:6) on the root (spin) ran longer than 0.2 s and was stopped"
        )
        let verdict = strict ? "failing the run (--strict)" : "--strict makes them fail the run"
        #expect(output.stderrLines.last == "anna: 1 error (1 operation stopped at the time limit); \(verdict)")
    }

    @Test("a progress line appears on a terminal, and only there")
    func progressOnTerminal() async throws {
        let workspace = try Workspace.shop()
        let file = try workspace.writeLongSession()
        let (status, terminal) = try workspace.runOnTerminal(events: file)
        #expect(status == 0)
        #expect(terminal.contains("lines, 2 results,"))
        #expect(terminal.contains("events/s"))
        #expect(try workspace.read("out.txt").split(separator: "\n").count == 2)
        let piped = try await AnnaProcess.run(
            ["run", "--events", file, "--module", workspace.file("module")], environment: ["ANNA_PROGRESS_INTERVAL": "0"])
        #expect(piped.stderrLinesWithoutNotes == [])
    }
}

@Suite("anna run: batches, long lines, messages on a terminal", .timeLimit(.minutes(2)))
struct RunCommandBatchTests {
    @Test("operations go to the module in batches, yet every message names its line, in line order")
    func batchedLines() async throws {
        let workspace = try Workspace.shop()
        let file = workspace.file("long.ndjson")
        var stream = try workspace.read("session.ndjson")  // 9 lines, 7 operations, 2 results
        var expected: [String] = []
        for line in 10...5_000 {
            switch line {
            case 1_500, 4_100:
                stream += #"{"op":"event","id":99,"name":"did-select"}"#
                expected.append(
                    "\(file):\(line): error: recording 'did-select' on node 99 failed: NodeError: Cannot record event 'did-select' on node 99: the node is not registered."
                )
            case 2_100:
                stream += #"{"op":"event","id":3,"name":"explode"}"#
                expected.append("\(file):2100: error: task 'list/item/explode' on '/home/list/item' (explode): boom")
            case 3_000:
                stream += "not json"
                expected.append("\(file):3000: invalid JSON at column 2: invalid literal, expected 'null'")
            case 3_500:
                stream += #"{"op":"event","id":3,"name":"log"}"#
                expected.append("logged from /home/list/item")
            case 4_500:
                stream += #"{"op":"event","id":3,"name":"did-select","time":2000}"#
            default:
                stream += #"{"op":"event","id":3,"name":"scroll","properties":{"n":\#(line)}}"#
            }
            stream += "\n"
        }
        try workspace.write("long.ndjson", stream)
        let output = try await AnnaInProcess.run(["run", "--events", file, "--module", workspace.file("module"), "--keep-going"])
        #expect(output.status == 0)
        #expect(output.stdoutLines.count == 3)
        #expect(
            output.stderrLines.map(withoutTaskLocations) == expected + [
                "anna: 5000 lines, 4997 operations, 3 results, 1 malformed line skipped",
                "anna: 3 errors (1 task failed, 2 node errors); --strict makes them fail the run",
            ])
    }

    @Test("long lines, CRLF line breaks and a last line without a break are read")
    func lineShapes() async throws {
        let workspace = try Workspace.shop()
        let title = String(repeating: "long ", count: 40_000)  // 200 kB, past the reader's first buffer
        let stream =
            try workspace.read("session.ndjson")
            + #"{"op":"update","id":3,"keyPath":"title","value":"\#(title)"}"# + "\n"
            + #"{"op":"event","id":3,"name":"did-select"}"#
        try workspace.write("crlf.ndjson", stream.replacingOccurrences(of: "\n", with: "\r\n"))
        let output = try await workspace.runModule(events: "crlf.ndjson")
        #expect(output.status == 0)
        #expect(output.stderrLinesWithoutNotes == [])
        #expect(
            output.stdoutLines == [
                #"{"action":"viewed","screen":"/home"}"#,
                #"{"action":"selected","item":4,"title":"Boots"}"#,
                #"{"action":"selected","item":4,"title":"\#(title)"}"#,
            ])
    }

    @Test("on a terminal, errors and console output of tasks start on a line of their own, not after the progress line")
    func messagesClearTheProgressLine() throws {
        let workspace = try Workspace.shop()
        let file = try workspace.writeLongSession(
            appending: #"{"op":"event","id":3,"name":"explode"}"# + "\n" + #"{"op":"event","id":3,"name":"log"}"# + "\n")
        let (status, terminal) = try workspace.runOnTerminal(events: file)
        #expect(status == 0)
        #expect(terminal.contains("events/s"))
        // What each row shows in the end: the text after its last "clear line" sequence.
        let rows = terminal.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
        let shown = rows.map { withoutTaskLocations($0.components(separatedBy: "\r\u{1B}[K").last ?? $0) }
        #expect(shown.contains("\(file):3010: error: task 'list/item/explode' on '/home/list/item' (explode): boom"))
        #expect(shown.contains("logged from /home/list/item"))
    }
}
