import CoreJS
import Foundation
import Testing

@testable import Anna

@Suite("The standard event names are the wire names of the JavaScript core and of the iOS Anna")
struct StandardEventTests {
    /// The table as name → wire text, in the order the core's `node.js` declares them.
    static let table: KeyValuePairs<String, String> = [
        "APPEARED": StandardEvent.appeared, "DISAPPEARED": StandardEvent.disappeared,
        "UPDATED": StandardEvent.updated, "KEY_PATH": StandardEvent.keyPath, "VALUE": StandardEvent.value,
    ]

    @Test("each name is the constant the bundled core's node.js compares events with")
    func coreAgrees() throws {
        let url = BundledCore.folderURL.appendingPathComponent("node.js")
        let source = try String(contentsOf: url, encoding: .utf8)
        var constants: [String: String] = [:]
        for line in source.split(separator: "\n") {
            guard let match = line.wholeMatch(of: /const ([A-Z_]+) = '([^']*)';/) else { continue }
            constants[String(match.1)] = String(match.2)
        }
        for (name, wire) in Self.table {
            #expect(constants[name] == wire, "node.js's \(name) is \(constants[name] ?? "missing"), the table's is \(wire)")
        }
    }

    @Test("each name is spelled as the iOS Anna records it")
    func referenceAgrees() {
        // coppercash/Anna: `VisibilityEvent.name` in UIResponder+Hookable.swift, and the event
        // `Analyzer.update(_:for:)` and `KVObserver` record (Analyzer.swift, KVObserver.swift).
        #expect(
            [StandardEvent.appeared, StandardEvent.disappeared, StandardEvent.updated, StandardEvent.keyPath, StandardEvent.value]
                == ["ana-appeared", "ana-disappeared", "ana-updated", "key-path", "value"])
    }

    @Test("the stream codec's short forms expand to the standard events")
    func codecUsesTheTable() throws {
        let update = try #require(try EventStream.parse(line: #"{"op":"update","id":1,"keyPath":"title","value":"Boots"}"#))
        let expected: JSONValue = [StandardEvent.keyPath: "title", StandardEvent.value: "Boots"]
        #expect(update.command == .operation(.event(id: NodeID(1), name: StandardEvent.updated, properties: expected)))
        let appear = try #require(try EventStream.parse(line: #"{"op":"appear","id":1}"#))
        #expect(appear.command == .operation(.event(id: NodeID(1), name: StandardEvent.appeared, properties: [:])))
        let disappear = try #require(try EventStream.parse(line: #"{"op":"disappear","id":1}"#))
        #expect(disappear.command == .operation(.event(id: NodeID(1), name: StandardEvent.disappeared, properties: [:])))
    }
}
