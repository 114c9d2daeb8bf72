// Counts of one are said in the singular: `1 result`, `1 problem`, `1 operation`.
import AnnaTestSupport
import Foundation
import Testing

@Suite("counts of one in the singular", .timeLimit(.minutes(2)))
struct PluralTests {
    @Test("the --keep-going summary and the zero-result note say 1 line, 1 operation, 1 result")
    func singular() async throws {
        let workspace = try Workspace([
            "tasks/index.js": "match('tap', () => 'tapped');\n",
            "one.ndjson": #"{"op":"register","id":1,"parent":null,"name":"__root__"}"# + "\nnot json\n",
            "none.ndjson": #"{"op":"register","id":1,"parent":null,"name":"__root__"}"# + "\n",
        ])
        try workspace.write("one.ndjson", try workspace.read("one.ndjson") + #"{"op":"event","id":1,"name":"tap"}"# + "\n")
        let output = try await AnnaInProcess.run([
            "run", "--events", workspace.file("one.ndjson"), "--tasks", workspace.file("tasks"), "--keep-going",
        ])
        #expect(output.status == 0)
        #expect(output.stderrLines.last == "anna: 3 lines, 2 operations, 1 result, 1 malformed line skipped")
        let none = try await AnnaInProcess.run(["run", "--events", workspace.file("none.ndjson"), "--tasks", workspace.file("tasks")])
        #expect(none.stderrLines.contains { $0.hasPrefix("anna: no task produced a result (1 operation replayed)") }, "\(none.stderr)")
    }
}
