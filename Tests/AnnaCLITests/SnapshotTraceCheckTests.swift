import AnnaTestSupport
import Foundation
import Testing

@Suite("anna snapshot, trace and check", .timeLimit(.minutes(2)))
struct SnapshotTraceCheckTests {
    @Test("snapshot prints markup, json or a Graphviz digraph after the stream")
    func snapshotFormats() async throws {
        let workspace = try Workspace.shop()
        let arguments = ["snapshot", "--events", workspace.file("session.ndjson"), "--module", workspace.file("module")]
        let markup = try await AnnaInProcess.run(arguments)
        #expect(markup.status == 0)
        #expect(markup.stdout.hasPrefix(#"<__root__ id="1" class="ana-node" createdAt="1000">"#))
        #expect(markup.stdout.contains(#"<item id="3" class="ana-node" createdAt="1003" index="4">"#))
        let json = try await AnnaInProcess.run(arguments + ["--format", "json"])
        #expect(json.stdout.contains(#""name":"item""#))
        let dot = try await AnnaInProcess.run(arguments + ["--format", "dot"])
        #expect(
            dot.stdoutLines == [
                "digraph focus {",
                "  rankdir=TB;",
                "  node [shape=box, fontname=\"Helvetica\"];",
                "  \"1\" [label=\"__root__\"];",
                "  \"2\" [label=\"home\\nlast: ana-appeared\"];",
                "  \"1\" -> \"2\";",
                "  \"2/list\" [label=\"list\"];",
                "  \"2\" -> \"2/list\";",
                "  \"3\" [label=\"item [4]\\nlast: did-select\"];",
                "  \"2/list\" -> \"3\";",
                "}",
            ])
    }

    @Test("trace passes when the expected items come in order, and writes JUnit")
    func tracePasses() async throws {
        let workspace = try Workspace.shop()
        try workspace.write(
            "ok.trace.json",
            """
            {"name": "browse", "items": [{"action": "viewed", "screen": "/home"}, {"title": "Boots", "item": 4, "action": "selected"}]}
            """)
        let output = try await trace(workspace, events: "session.ndjson", expect: "ok.trace.json", junit: "junit.xml")
        #expect(output.status == 0)
        #expect(
            output.stdoutLines == [
                "PASS browse: 2 of 2 matched",
                #"  matched       {"action":"viewed","screen":"/home"} (result 1)"#,
                #"  matched       {"title":"Boots","item":4,"action":"selected"} (result 2)"#,
                "1 passed, 0 failed",
            ])
        let junit = try workspace.read("junit.xml")
        #expect(junit.contains(#"<testsuite name="\#(workspace.file("ok.trace.json"))" tests="1" failures="0">"#))
        #expect(
            junit.contains(#"<testcase classname="anna.trace" name="browse" file="\#(workspace.file("ok.trace.json"))" line="1"></testcase>"#))
    }

    @Test("JUnit XML stays well-formed whatever a trace's name holds (controls XML cannot hold are written \\u001b)")
    func junitWithControls() async throws {
        let workspace = try Workspace.shop()
        try workspace.write("c.trace.json", #"{"name": "a\u0000b\u001b<c>", "items": [{"action": "viewed", "screen": "/home"}]}"#)
        let output = try await trace(workspace, events: "session.ndjson", expect: "c.trace.json", junit: "junit.xml")
        #expect(output.status == 0, "\(output.stderr)")
        let junit = try workspace.read("junit.xml")
        #expect(junit.contains(#"name="a\u0000b\u001b&lt;c&gt;""#), "\(junit)")
        #expect(!junit.unicodeScalars.contains { $0.value < 0x20 && ![0x09, 0x0A, 0x0D].contains($0.value) }, "no character XML 1.0 refuses")
    }

    @Test("trace reports missing, out of order, duplicated and unexpected items and exits 1")
    func traceFails() async throws {
        let workspace = try Workspace.shop()
        try workspace.writeSession("twice.ndjson", appending: #"{"op":"event","id":3,"name":"did-select","time":1010}"# + "\n")
        try workspace.write(
            "bad.trace.json",
            """
            [
              {"name": "order", "items": [{"action": "selected", "item": 4, "title": "Boots"}, {"action": "viewed", "screen": "/home"}]},
              {"name": "missing", "items": [{"action": "checkout"}], "enforceOrder": false},
              {"name": "once", "items": [{"action": "selected", "item": 4, "title": "Boots"}], "allowDuplicates": false},
              {"name": "any number", "items": [{"action": "selected", "item": 4, "title": "Boots"}], "allowDuplicates": true}
            ]
            """)
        let output = try await trace(workspace, events: "twice.ndjson", expect: "bad.trace.json", junit: "junit.xml")
        #expect(output.status == 1)
        let file = workspace.file("bad.trace.json")
        #expect(
            output.stdoutLines == [
                "FAIL order: 1 of 2 matched",
                #"  matched       {"action":"selected","item":4,"title":"Boots"} (result 2)"#,
                #"  out of order  {"action":"viewed","screen":"/home"} (result 1) at \#(file):2"#,
                #"  duplicated    {"action":"selected","item":4,"title":"Boots"} (2 times) at \#(file):2"#,
                "FAIL missing: 0 of 1 matched",
                #"  missing       {"action":"checkout"} at \#(file):3"#,
                "FAIL once: 1 of 1 matched",
                #"  matched       {"action":"selected","item":4,"title":"Boots"} (result 2)"#,
                #"  duplicated    {"action":"selected","item":4,"title":"Boots"} (2 times) at \#(file):4"#,
                "PASS any number: 1 of 1 matched",
                #"  matched       {"action":"selected","item":4,"title":"Boots"} (result 2)"#,
                "1 passed, 3 failed",
            ])
        let junit = try workspace.read("junit.xml")
        #expect(junit.contains(#"failures="3""#))
        #expect(junit.contains(#"<failure message="missing {&quot;action&quot;:&quot;checkout&quot;} at \#(file):3">"#))
        #expect(
            junit.contains(
                #"<failure message="out of order {&quot;action&quot;:&quot;viewed&quot;,&quot;screen&quot;:&quot;/home&quot;} (result 1) at \#(file):2">"#
            ))
        #expect(
            junit.contains(
                #"duplicated {&quot;action&quot;:&quot;selected&quot;,&quot;item&quot;:4,&quot;title&quot;:&quot;Boots&quot;} (2 times) at \#(file):4</failure>"#
            ))
    }

    @Test("results no trace expects are listed as unexpected without failing")
    func unexpected() async throws {
        let workspace = try Workspace.shop()
        try workspace.write("partial.trace.json", #"{"name": "viewed only", "items": [{"action": "viewed", "screen": "/home"}]}"#)
        let output = try await trace(workspace, events: "session.ndjson", expect: "partial.trace.json")
        #expect(output.status == 0)
        #expect(
            output.stdoutLines == [
                "PASS viewed only: 1 of 1 matched", #"  matched       {"action":"viewed","screen":"/home"} (result 1)"#,
                "unexpected: 1 of 2 results matches no trace item (--verbose lists them)", "1 passed, 0 failed",
            ])
        let verbose = try await trace(workspace, events: "session.ndjson", expect: "partial.trace.json", extra: ["--verbose"])
        #expect(verbose.stdoutLines.contains("unexpected: 1 of 2 results matches no trace item"))
        #expect(verbose.stdoutLines.contains(#"  unexpected    {"action":"selected","item":4,"title":"Boots"}"#))
    }

    @Test("a missing or malformed trace file is reported")
    func badTraceFile() async throws {
        let workspace = try Workspace.shop()
        let missing = try await trace(workspace, events: "session.ndjson", expect: "none.json")
        #expect(missing.status == 66)
        try workspace.write("bad.json", #"{"name": "x"}"#)
        let malformed = try await trace(workspace, events: "session.ndjson", expect: "bad.json")
        #expect(malformed.status == 65)
        #expect(malformed.stderrLines == ["\(workspace.file("bad.json")):1: trace 'x' needs an array 'items'"])
    }

    @Test("check lists patterns per file and reports syntax errors and malformed patterns with file:line")
    func check() async throws {
        let workspace = try Workspace([
            "module/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' });\n",
            "module/task/index.js": "match('/home/ana-appeared', () => 1);\nmatch(['list/item/tap', 'tap'], () => 2);\n",
            "module/task/Shop/Cart.js": "// cart\nmatch('cart//tap', () => 1);\n",
            "module/task/Broken.js": "match('a/tap', () => 1);\nmatch('b/tap', () => ;\n",
            // A `#!` line loads in a run, so it passes the check too.
            "module/task/Tool.js": "#!/usr/bin/env node\nmatch('tool/tap', () => 3);\n",
        ])
        let output = try await AnnaInProcess.run(["check", "--module", workspace.file("module")])
        #expect(output.status == 1)
        #expect(
            output.stdoutLines == [
                "Broken.js",
                "Shop/Cart.js",
                "Tool.js",
                "  2:\ttool/tap",
                "index.js",
                "  1:\t/home/ana-appeared",
                "  2:\tlist/item/tap",
                "  2:\ttap",
                "4 files, 4 patterns, 2 problems",
            ])
        let folder = workspace.file("module/task")
        #expect(output.stderrLines.count == 2)
        #expect(output.stderrLines.first?.hasPrefix("\(folder)/Broken.js:2: SyntaxError:") == true)
        #expect(output.stderrLines.last?.hasPrefix("\(folder)/Shop/Cart.js:2: PatternError: Malformed pattern 'cart//tap'") == true)

        // The same folder reached through `..` is checked the same way (Broken.js fails it).
        let throughDots = try await AnnaInProcess.run(["check", "--tasks", workspace.file("module/task/Shop/..")])
        #expect(throughDots.status == 1)
        #expect(throughDots.stdout == output.stdout)
        try workspace.write("clean/index.js", "match('a/tap', () => 1);\n")
        let clean = try await AnnaInProcess.run(["check", "--tasks", workspace.file("clean")])
        #expect(clean.status == 0)
        #expect(clean.stdoutLines == ["index.js", "  1:\ta/tap", "1 file, 1 pattern, 0 problems"])
        #expect(clean.stderr == "")
        let none = try await AnnaInProcess.run(["check", "--tasks", workspace.file("nothing")])
        #expect(none.status == 66)
        #expect(none.stderrLines == ["anna: no such task folder: \(workspace.file("nothing"))"])
        try workspace.write("flat/task", "not a folder")
        try workspace.write("flat/index.js", "module.exports = require('anna').configured({ task: __dirname + '/task' });\n")
        let notFolder = try await AnnaInProcess.run(["check", "--module", workspace.file("flat")])
        #expect(notFolder.status == 66)
        #expect(notFolder.stderrLines == ["anna: not a folder: \(workspace.file("flat/task"))"])
    }

    @Test("check --events on a module that does not load says so once, and exits 1 with its summary")
    func checkEventsOnABrokenModule() async throws {
        let workspace = try Workspace.shop()
        try workspace.write("module/index.js", "module.exports = (;\n")
        let output = try await AnnaInProcess.run(
            ["check", "--module", workspace.file("module"), "--events", workspace.file("session.ndjson")])
        #expect(output.status == 1, "\(output.stderr)")
        #expect(output.stderrLines.filter { $0.contains("SyntaxError") }.count == 1, "\(output.stderr)")
        #expect(output.stderrLines.contains("anna: \(workspace.file("session.ndjson")) was not replayed: the module does not load"))
        #expect(output.stdoutLines.last?.hasSuffix("1 problem") == true, "\(output.stdout)")
    }

    /// Runs `anna trace` on the workspace's module with its files `events`, `expect` and, when
    /// given, `junit`.
    func trace(_ workspace: Workspace, events: String, expect: String, junit: String? = nil, extra: [String] = []) async throws
        -> AnnaProcess.Output
    {
        try await AnnaInProcess.run(
            ["trace", "--events", workspace.file(events), "--module", workspace.file("module"), "--expect", workspace.file(expect)]
                + (junit.map { ["--junit", workspace.file($0)] } ?? []) + extra)
    }
}
