import Anna
import CoreJS
import Testing

@Suite("Event stream format")
struct EventStreamTests {
    static let operations: [ModuleOperation] = [
        .register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil),
        .register(
            id: NodeID(owner: 7, keys: [.name("row"), .index(2)]), parent: NodeID(7), name: "row", index: 2,
            namespace: "Lib.Alpha", attributes: ["title": "ünï \"q\""]),
        .event(id: NodeID(7), name: "did-select", properties: ["x": 1, "nested": ["a": [true, nil]]]),
        .deregister(id: NodeID(owner: 7, keys: [.name("row")])),
    ]

    @Test("every operation writes a line that parses back to it", arguments: operations)
    func roundTrip(_ operation: ModuleOperation) throws {
        let line = EventStream.line(for: operation, time: 1_700_000_000_123)
        #expect(try EventStream.parse(line: line) == EventStream.Record(command: .operation(operation), time: 1_700_000_000_123))
    }

    @Test("sugar ops become the events they stand for; blank and comment lines are skipped")
    func sugar() throws {
        #expect(
            try EventStream.parse(line: #"{"op":"update","id":3,"keyPath":"text","value":"x"}"#)
                == .init(command: .operation(.event(id: NodeID(3), name: "ana-updated", properties: ["key-path": "text", "value": "x"]))))
        #expect(
            try EventStream.parse(line: #"{"op":"update","id":3,"keyPath":"text"}"#)
                == .init(command: .operation(.event(id: NodeID(3), name: "ana-updated", properties: ["key-path": "text"]))))
        #expect(
            try EventStream.parse(line: #"{"op":"appear","id":[3,"a"],"time":5}"#)
                == .init(command: .operation(.event(id: NodeID(owner: 3, keys: [.name("a")]), name: "ana-appeared", properties: [:])), time: 5))
        #expect(
            try EventStream.parse(line: #"{"op":"disappear","id":3}"#)
                == .init(command: .operation(.event(id: NodeID(3), name: "ana-disappeared", properties: [:]))))
        #expect(try EventStream.parse(line: #"{"op":"snapshot"}"#) == .init(command: .snapshot))
        #expect(try EventStream.parse(line: "") == nil)
        #expect(try EventStream.parse(line: "   ") == nil)
        #expect(try EventStream.parse(line: "// a comment") == nil)
    }

    @Test("malformed lines say what is wrong")
    func errors() {
        #expect(throws: EventStream.FormatError("field 'name' must be a non-empty string, got \"\"")) {
            try EventStream.parse(line: #"{"op":"event","id":1,"name":""}"#)
        }
        #expect(throws: EventStream.FormatError("field 'parent' must be a node ID (an integer or [owner, key, …]), got [\"a\"]")) {
            try EventStream.parse(line: #"{"op":"register","id":1,"parent":["a"],"name":"x"}"#)
        }
    }
}

extension ModuleOperation: CustomTestStringConvertible {
    public var testDescription: String { EventStream.line(for: self) }
}
