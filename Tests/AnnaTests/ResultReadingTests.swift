import Anna
import CoreJS
import Foundation
import Testing

@Suite("Reading results back from JavaScript")
struct ResultReadingTests {
    @Test("a result whose toJSON never ends loses only itself: the batch's other results arrive")
    func endlessToJSON() throws {
        var values: [JSONValue] = []
        let tasks = """
            match('tap', () => 'first');
            match('tap', () => ({ kept: true, toJSON() { for (;;) {} } }));
            match('tap', () => 'third');
            """
        let engine = try moduleEngine(tasks: tasks, limit: 0.3) { values.append($0.value) }
        try engine.registerNode(id: NodeID(1), parent: nil, name: "root")
        try engine.recordEvent(name: "tap", nodeID: NodeID(1))
        #expect(values == ["first", ["kept": true], "third"])
    }
}
