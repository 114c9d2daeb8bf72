import CoreJS
import Foundation
import Testing

@testable import Anna

@Suite("Bridge memory: shared properties, collections after removed nodes")
struct BridgeMemoryTests {
    /// A core of its own that returns, per event, what it was handed as properties.
    static let propertiesCore = """
        module.exports = function Module(receive) {
          let previous = null;
          return {
            registerNode() {},
            deregisterNodes() { return 1; },
            recordEvent(name, properties) {
              receive({
                keys: Object.keys(properties), frozen: Object.isFrozen(properties),
                sameAsPrevious: properties === previous,
              });
              previous = properties;
            },
            logSnapshot() {},
            snapshot() { return ''; },
          };
        };
        """

    @Test("events without properties share one frozen empty object; events with numbers get their own")
    func sharedEmptyProperties() throws {
        var results: [JSONValue] = []
        let engine = try moduleEngine(tasks: "", extra: ["/m/index.js": Self.propertiesCore])
        results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__").map(\.value)
        results += try engine.recordEvent(name: "did-select", properties: [:], nodeID: NodeID(1)).map(\.value)
        results += try engine.recordEvent(name: "did-select", properties: .object([:]), nodeID: NodeID(1)).map(\.value)
        results += try engine.recordEvent(name: "scroll", properties: ["x": 1], nodeID: NodeID(1)).map(\.value)
        results += try engine.recordEvent(name: "scroll", properties: ["x": 1], nodeID: NodeID(1)).map(\.value)
        #expect(
            results == [
                ["keys": [], "frozen": true, "sameAsPrevious": false],
                ["keys": [], "frozen": true, "sameAsPrevious": true],
                ["keys": ["x"], "frozen": false, "sameAsPrevious": false],
                ["keys": ["x"], "frozen": false, "sameAsPrevious": false],
            ])
    }

    /// A core that returns, per event, its properties and whether it was handed this very
    /// object before for the same content.
    static let sharingCore = """
        module.exports = function Module(receive) {
          const seen = new Map();
          return {
            registerNode(id, parent, name, index, namespace, attributes) {
              if (attributes && Object.keys(attributes).length > 0) receive({ attributes, frozen: Object.isFrozen(attributes) });
            },
            deregisterNodes() { return 1; },
            recordEvent(name, properties) {
              const text = JSON.stringify(properties);
              const before = seen.get(text);
              seen.set(text, properties);
              receive({ properties, frozen: Object.isFrozen(properties), sameAsBefore: before === properties });
            },
            logSnapshot() {},
            snapshot() { return ''; },
          };
        };
        """

    /// Records `properties` on node 1 of a fresh sharing-core engine, then returns what the core saw.
    static func sharing(_ properties: [JSONValue]) throws -> [JSONValue] {
        var results: [JSONValue] = []
        let engine = try moduleEngine(tasks: "", extra: ["/m/index.js": sharingCore])
        results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__").map(\.value)
        for value in properties { results += try engine.recordEvent(name: "ana-updated", properties: value, nodeID: NodeID(1)).map(\.value) }
        return results
    }

    @Test("one or two members of interned strings, booleans or null: one frozen object per content")
    func sharedSmallProperties() throws {
        let update: JSONValue = ["key-path": "text", "value": "v1"]
        let long = String(repeating: "x", count: OperationEncoder.internLimit + 1)
        let sent: [JSONValue] = [
            update, update, ["key-path": "text", "value": "v2"], ["value": "v1", "key-path": "text"],
            ["on": true], ["on": true], ["on": .null], ["on": .null],
            ["x": 1], ["x": 1], ["text": .string(long)], ["text": .string(long)], [long: "a"], [long: "a"],
            ["a": "1", "b": "2", "c": "3"], ["a": "1", "b": "2", "c": "3"],
        ]
        let results = try Self.sharing(sent)
        #expect(
            results.map { $0["sameAsBefore"] } == [
                false, true, false, false,  // the same key path and value; another value; another order
                false, true, false, true,  // booleans and null
                false, false, false, false, false, false,  // numbers, and strings too long to intern, are not shared
                false, false,  // nor three members
            ])
        #expect(results.map { $0["frozen"] } == [true, true, true, true, true, true, true, true] + Array(repeating: false, count: 8))
        #expect(results.map { $0["properties"] } == sent)
    }

    @Test("registration attributes are never shared: the core gets its own object each time")
    func attributesNotShared() throws {
        var results: [JSONValue] = []
        let engine = try moduleEngine(tasks: "", extra: ["/m/index.js": Self.sharingCore])
        results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__", attributes: ["title": "a"]).map(\.value)
        results += try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "n", attributes: ["title": "a"]).map(\.value)
        #expect(results == [["attributes": ["title": "a"], "frozen": false], ["attributes": ["title": "a"], "frozen": false]])
    }

    @Test("shared objects are bounded: after 4,096 others, a content of one or two members gets a new object")
    func sharedPropertiesBounded() throws {
        let one: JSONValue = ["value": "first"]
        let two: JSONValue = ["key-path": "k", "value": "first"]
        let others = (0..<4_096).map { JSONValue.object(["value": .string("v\($0)")]) }
        let results = try Self.sharing([one, one, two, two] + others + [one, two])
        #expect(results[1]["sameAsBefore"] == true)
        #expect(results[3]["sameAsBefore"] == true)
        #expect(results.suffix(2).map { $0["sameAsBefore"] } == [false, false])
        #expect(results.suffix(2).map { $0["properties"] } == [one, two])
    }

    @Test("when the interned table starts over, shared objects go with it")
    func sharedPropertiesAfterTableReset() throws {
        // Both phases intern "n", "v" and a value first, so `{ v: "b" }` gets the numbers
        // `{ v: "a" }` had. Event names in between fill the table, so the second phase starts
        // it over; a shared object kept across would give the core `{ v: "a" }` again.
        var received: [JSONValue] = []
        let engine = try moduleEngine(tasks: "", extra: ["/m/index.js": Self.sharingCore])
        let fail = { (position: Int, error: AnalyticsError) -> Void in Issue.record("operation \(position): \(error)") }
        let receive = { (result: AnalyticsResult) -> Void in received.append(result.value["properties"] ?? .undefined) }
        func phase(node: Int, value: String) {
            engine.apply(
                [
                    TimedOperation(
                        .register(id: NodeID(node), parent: node == 1 ? nil : NodeID(1), name: "n", index: nil, namespace: nil, attributes: nil)),
                    TimedOperation(.event(id: NodeID(node), name: "v", properties: ["v": .string(value)])),
                ]
            ).forEach(result: receive, error: fail)
        }
        phase(node: 1, value: "a")
        var names = 3
        while names < OperationEncoder.tableLimit {  // one batch per call: the table starts over with the next call
            let count = min(AnalyticsEngine.maximumBatchSize, OperationEncoder.tableLimit - names)
            engine.apply((names..<names + count).map { TimedOperation(.event(id: NodeID(1), name: "e\($0)", properties: .null)) }).forEach(
                result: receive, error: fail)
            names += count
        }
        phase(node: 2, value: "b")
        #expect(received.count == OperationEncoder.tableLimit - 1)
        #expect(received.first == ["v": "a"])
        #expect(received.last == ["v": "b"])
    }

    @Test("a full collection runs once the nodes removed are at least 1,000 and as many as remain")
    func collectionAfterRemovedNodes() throws {
        let engine = try moduleEngine(tasks: "")
        let list = NodeID(2)
        var registrations = [
            TimedOperation(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil), time: nil),
            TimedOperation(.register(id: list, parent: NodeID(1), name: "list", index: nil, namespace: nil, attributes: nil), time: nil),
        ]
        let cells = (0..<2_000).map { NodeID(100 + $0) }
        registrations += cells.enumerated().map { index, cell in
            TimedOperation(.register(id: cell, parent: list, name: "cell", index: index, namespace: nil, attributes: nil), time: nil)
        }
        engine.apply(registrations).forEach { _ in
        } error: { position, error in
            Issue.record("operation \(position): \(error)")
        }

        // 1,000 of 2,002 removed: fewer than remain.
        for cell in cells[..<1_000] { try engine.deregisterNodes(id: cell) }
        #expect(engine.garbageCollections == 0)
        // One more: 1,001 removed, 1,001 remain.
        try engine.deregisterNodes(id: cells[1_000])
        #expect(engine.garbageCollections == 1)
        // The list and its 999 cells: 1,000 removed since, 1 remains.
        try engine.deregisterNodes(id: list)
        #expect(engine.garbageCollections == 2)
        // The root alone: 1 removed since.
        try engine.deregisterNodes(id: NodeID(1))
        #expect(engine.garbageCollections == 2)
    }
}
