// The trace file's format through `anna trace`: "match": "subset", --meta, unknown keys,
// line numbers, and the run's errors in a JUnit failure.
import AnnaTestSupport
import Foundation
import Testing

@Suite("anna trace: subset matching, --meta, strict keys, lines", .timeLimit(.minutes(2)))
struct TraceFormatTests {
    /// A notes module whose result has more fields than a trace names, nested.
    static func notes() throws -> Workspace {
        try Workspace([
            "module/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' });\n",
            "module/task/index.js": """
            match('notes/note/tap', (node) => ({ event: 'open_note', note: { id: 'n' + node.index, pinned: false }, source: 'list' }));
            match('notes/note/explode', () => { throw new Error('boom'); });

            """,
            "session.ndjson": """
            {"op":"register","id":1,"parent":null,"name":"__root__"}
            {"op":"register","id":2,"parent":1,"name":"notes"}
            {"op":"register","id":3,"parent":2,"name":"note","index":7}
            {"op":"event","id":3,"name":"tap"}
            {"op":"event","id":3,"name":"explode"}

            """,
        ])
    }

    private func trace(_ workspace: Workspace, _ trace: String, _ extra: [String] = []) async throws -> AnnaProcess.Output {
        try workspace.write("t.json", trace)
        return try await AnnaInProcess.run(
            ["trace", "--events", workspace.file("session.ndjson"), "--module", workspace.file("module"), "--expect", workspace.file("t.json")]
                + extra)
    }

    @Test("\"match\": \"subset\" matches a result that has the item's keys with equal values, recursively")
    func subset() async throws {
        let workspace = try Self.notes()
        let item = #"{"event": "open_note", "note": {"id": "n7"}}"#
        let subset = try await trace(workspace, #"{"name": "open", "match": "subset", "items": [\#(item)]}"#)
        #expect(subset.status == 0)
        #expect(subset.stdoutLines.first == "PASS open: 1 of 1 matched")
        let exact = try await trace(workspace, #"{"name": "open", "items": [\#(item)]}"#)
        #expect(exact.status == 1)
        #expect(exact.stdoutLines.first == "FAIL open: 0 of 1 matched")
        let differs = try await trace(workspace, #"{"name": "open", "match": "subset", "items": [{"note": {"id": "n8"}}]}"#)
        #expect(differs.status == 1)
        #expect(differs.stdoutLines.contains(#"  missing       {"note":{"id":"n8"}} at \#(workspace.file("t.json")):1"#))
    }

    @Test("--meta compares items with the result's task, path and event")
    func meta() async throws {
        let workspace = try Self.notes()
        let byTask =
            #"{"name": "tap", "match": "subset", "items": [{"task": "notes/note/tap", "path": "/notes/note", "result": {"event": "open_note"}}]}"#
        let withMeta = try await trace(workspace, byTask, ["--meta"])
        #expect(withMeta.status == 0)
        #expect(withMeta.stdoutLines.first == "PASS tap: 1 of 1 matched")
        let withoutMeta = try await trace(workspace, byTask)
        #expect(withoutMeta.status == 1)
        let wrongPath = try await trace(
            workspace, #"{"name": "tap", "match": "subset", "items": [{"task": "notes/note/tap", "path": "/notes"}]}"#, ["--meta"])
        #expect(wrongPath.status == 1)
    }

    @Test("an unknown key in a trace file is an error naming the key and its line (64)")
    func unknownKey() async throws {
        let workspace = try Self.notes()
        let output = try await trace(
            workspace,
            """
            [
              {"name": "open",
               "enforceOrdr": false,
               "items": [{"event": "open_note"}]}
            ]
            """)
        #expect(output.status == 64)
        #expect(
            output.stderrLines == [
                "\(workspace.file("t.json")):3: unknown key 'enforceOrdr' in trace 'open'; did you mean 'enforceOrder'? "
                    + "(a trace has name, items, match, enforceOrder, allowDuplicates)"
            ])
        #expect(output.stdout == "")
    }

    @Test("a malformed trace file names its line: invalid JSON, a bad value, a bad 'match' (65)")
    func malformedLines() async throws {
        let workspace = try Self.notes()
        let file = workspace.file("t.json")
        let json = try await trace(workspace, "[\n  {\"items\": []},\n  {\"items\": [}\n]\n")
        #expect(json.status == 65)
        #expect(json.stderrLines.first?.hasPrefix("\(file):3:") == true)
        #expect(json.stderrLines.first?.contains("invalid JSON") == true)
        let flag = try await trace(workspace, "{\"items\": [],\n \"allowDuplicates\": \"yes\"}")
        #expect(flag.status == 65)
        #expect(flag.stderrLines == ["\(file):2: 'allowDuplicates' must be true or false"])
        let match = try await trace(workspace, "{\"items\": [],\n\n \"match\": \"loose\"}")
        #expect(match.status == 65)
        #expect(match.stderrLines == [#"\#(file):3: 'match' must be "exact" or "subset", got "loose""#])
    }

    @Test("a JUnit failure carries the task errors of the run")
    func junitCarriesErrors() async throws {
        let workspace = try Self.notes()
        let output = try await trace(workspace, #"{"name": "boom", "items": [{"event": "exploded"}]}"#, ["--junit", workspace.file("junit.xml")])
        #expect(output.status == 1)
        let junit = try workspace.read("junit.xml")
        #expect(junit.contains(#"<failure message="missing {&quot;event&quot;:&quot;exploded&quot;} at \#(workspace.file("t.json")):1">"#))
        #expect(junit.contains("1 error in the run:\n\(workspace.file("session.ndjson")):5: error: task 'notes/note/explode'"))
        #expect(junit.contains(": boom"))
    }
}
