import AnnaTestSupport
import Foundation
import Testing

/// One malformed pattern through `anna run`: the task file is named as not loaded, at the
/// pattern's line, and the summary counts a task file that failed to load (not "other").
@Suite("A malformed pattern on the command line")
struct MalformedPatternCommandTests {
    @Test("the error names the task file and the pattern's line; the summary counts a task file that failed to load")
    func malformedPattern() async throws {
        let folder = try TemporaryFolder([
            "task/index.js": "match('tap', () => 1)\nmatch('a//tap', () => 2)\n",
            "s.ndjson": """
            {"op":"version","version":1}
            {"op":"register","id":1,"parent":null,"name":"__root__","time":1}
            {"op":"event","id":1,"name":"tap","time":2}

            """,
        ])
        let run = try await AnnaInProcess.run(["run", "--events", folder.file("s.ndjson"), "--tasks", folder.file("task")])
        #expect(run.status == 0)
        #expect(run.stdout.isEmpty, "the file's other task is not loaded either")
        let errors = run.stderrLines.filter { $0.contains("error") }
        #expect(errors.count == 2, "\(run.stderr)")
        #expect(
            errors.first?.contains(
                "error: task file index.js was not loaded: malformed pattern 'a//tap' at index.js:2:6: it has an empty node name ('//')")
                == true, "\(run.stderr)")
        #expect(errors.last == "anna: 1 error (1 task file failed to load); --strict makes them fail the run", "\(run.stderr)")
        #expect(!run.stderr.contains("__root__"))
    }
}
