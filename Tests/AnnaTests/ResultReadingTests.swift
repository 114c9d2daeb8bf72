import Anna
import CoreJS
import Foundation
import Testing

@Suite("Reading results back from JavaScript")
struct ResultReadingTests {
    @Test("a result whose toJSON never ends is stopped as its task, named with its place; the event's other tasks run")
    func endlessToJSON() throws {
        var values: [JSONValue] = []
        let tasks = """
            match('tap', () => 'first');
            match('tap', () => ({ kept: true, toJSON() { for (;;) {} } }));
            match('tap', () => 'third');
            """
        let engine = try moduleEngine(tasks: tasks, limit: 0.3)
        values += try engine.registerNode(id: NodeID(1), parent: nil, name: "root").map(\.value)
        var errors: [String] = []
        engine.apply([TimedOperation(.event(id: NodeID(1), name: "tap", properties: [:]))]).forEach(
            result: { values.append($0.value) }, error: { _, error in errors.append("\(error)") })
        #expect(values == ["first", "third"])
        #expect(
            errors == [
                "recording 'tap' on node 1 failed: execution time limit exceeded: task 'tap' (/m/task/index.js:2:6) on the root (tap) "
                    + "ran longer than 0.3 s and was stopped"
            ])
    }
}
