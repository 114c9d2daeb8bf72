import Anna
import Foundation
import Testing

/// ``ResultMeta`` keeps its strings in one shared record: it must still behave as a value.
@Suite("A result's meta is a value: copies, setters, equality and its JSON")
struct ResultMetaTests {
    @Test("setting a field of a copy leaves the original as it was; equality compares the strings")
    func copiesAreIndependent() {
        let original = ResultMeta(task: "cell/did-select", path: "/home/cell", event: "did-select")
        var copy = original
        #expect(copy == original)
        copy.path = "/cart/cell"
        #expect(original.path == "/home/cell" && copy.path == "/cart/cell")
        #expect(copy.task == original.task && copy.event == original.event)
        #expect(copy != original)
        copy.path = "/home/cell"
        #expect(copy == original)
        copy.task = "t"
        copy.event = "e"
        #expect(copy == ResultMeta(task: "t", path: "/home/cell", event: "e"))
    }

    @Test("its JSON has task, path and event, and reads back equal; a missing key is an error")
    func json() throws {
        let meta = ResultMeta(task: "a/b", path: "/a/b", event: "tap")
        let data = try JSONEncoder().encode(meta)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: String]
        #expect(object == ["task": "a/b", "path": "/a/b", "event": "tap"])
        #expect(try JSONDecoder().decode(ResultMeta.self, from: data) == meta)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ResultMeta.self, from: Data(#"{"task":"a","path":"/a"}"#.utf8))
        }
    }
}
