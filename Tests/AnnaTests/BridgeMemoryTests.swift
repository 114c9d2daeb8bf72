@testable import Anna
import CoreJS
import Foundation
import Testing

@Suite("Bridge memory: shared empty properties, collections after removed nodes")
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

    @Test("events without properties share one frozen empty object; others get their own")
    func sharedEmptyProperties() throws {
        var results: [JSONValue] = []
        let engine = try moduleEngine(tasks: "", extra: ["/m/index.js": Self.propertiesCore]) { results.append($0.value) }
        try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        try engine.recordEvent(name: "did-select", properties: [:], nodeID: NodeID(1))
        try engine.recordEvent(name: "did-select", properties: .object([:]), nodeID: NodeID(1))
        try engine.recordEvent(name: "scroll", properties: ["x": 1], nodeID: NodeID(1))
        try engine.recordEvent(name: "scroll", properties: ["x": 1], nodeID: NodeID(1))
        #expect(results == [
            ["keys": [], "frozen": true, "sameAsPrevious": false],
            ["keys": [], "frozen": true, "sameAsPrevious": true],
            ["keys": ["x"], "frozen": false, "sameAsPrevious": false],
            ["keys": ["x"], "frozen": false, "sameAsPrevious": false],
        ])
    }

    @Test("a full collection runs once the nodes removed are at least 1,000 and as many as remain")
    func collectionAfterRemovedNodes() throws {
        let engine = try moduleEngine(tasks: "") { _ in }
        let list = NodeID(2)
        var registrations = [
            TimedOperation(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil), time: nil),
            TimedOperation(.register(id: list, parent: NodeID(1), name: "list", index: nil, namespace: nil, attributes: nil), time: nil),
        ]
        let cells = (0..<2_000).map { NodeID(100 + $0) }
        registrations += cells.enumerated().map { index, cell in
            TimedOperation(.register(id: cell, parent: list, name: "cell", index: index, namespace: nil, attributes: nil), time: nil)
        }
        engine.apply(registrations) { position, error in Issue.record("operation \(position): \(error)") }

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
