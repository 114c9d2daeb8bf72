import Anna
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@Suite("A task file that is not loaded says which file and line, not which node", .timeLimit(.minutes(5)))
struct TaskFileLoadErrorTests {
    /// The errors of an engine on the in-memory module whose `task/index.js` is `tasks`, after
    /// registering the root and recording `tap` on it.
    func errors(tasks: String) throws -> [AnalyticsError] {
        var results: [AnalyticsResult] = []
        let engine = try moduleEngine(tasks: tasks)
        var errors: [AnalyticsError] = []
        engine.apply(
            [
                TimedOperation(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil), time: 1),
                TimedOperation(.event(id: NodeID(1), name: "tap", properties: .object([:])), time: 2),
            ]
        ).forEach {
            results.append($0)
        } error: { _, error in
            errors.append(error)
        }
        #expect(results.isEmpty, "a file with a malformed pattern adds none of its tasks")
        return errors
    }

    @Test("a malformed pattern: the file, the line and the reason, reported as a task file that failed to load")
    func malformedPattern() throws {
        let errors = try errors(tasks: "match('tap', () => 1);\nmatch('a//tap', () => 2);\n")
        try #require(errors.count == 1)
        #expect(
            errors[0].description
                == "task file index.js was not loaded: malformed pattern 'a//tap' at index.js:2:6: it has an empty node name ('//').")
        #expect(errors[0].exception?.name == "LoadError")
        #expect(errors[0].exception?.location == "/m/task/index.js:2:6")
    }

    @Test("on the first line too, the column is the call's")
    func firstLine() throws {
        let errors = try errors(tasks: "match('tap/*', () => 1);\n")
        #expect(
            errors.map(\.description) == [
                "task file index.js was not loaded: malformed pattern 'tap/*' at index.js:1:6: the event cannot be '*' ('*' stands for one node name)."
            ])
        #expect(errors.first?.exception?.location == "/m/task/index.js:1:6")
    }

    @Test("match without a function: the file and the line")
    func missingFunction() throws {
        let errors = try errors(tasks: "\nmatch('tap', 42);\n")
        #expect(
            errors.map(\.description) == [
                #"task file index.js was not loaded: match("tap", ...) needs a function as its second argument, not number (index.js:2:6)."#
            ])
        #expect(errors.first?.exception?.name == "LoadError")
    }
}
