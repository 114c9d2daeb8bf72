import Anna
import CoreJS
import Testing

/// A focus tree as deep as hostile input makes it: a chain of nested nodes, driven through the
/// engine's API (the core's own tests of deep trees are in `js-anna/deep-tree.test.js`).
@Suite("A chain of 20,000 nested nodes through the engine's API")
struct DeepTreeTests {
    static let depth = 20_000

    final class Collector {
        var results: [AnalyticsResult] = []
    }

    /// An engine holding root (ID 1) / n / n / …: `depth` nested nodes, the one at depth d with ID d + 1.
    func chainEngine(into collector: Collector = Collector()) throws -> AnalyticsEngine {
        let engine = try moduleEngine(tasks: "match('n/n/tap', (node) => node.path.length);", limit: 60)
        let operations = (1...Self.depth + 1).map { id in
            TimedOperation(
                .register(
                    id: NodeID(id), parent: id == 1 ? nil : NodeID(id - 1), name: id == 1 ? "__root__" : "n", index: nil, namespace: nil,
                    attributes: nil),
                time: 5)
        }
        engine.apply(operations).forEach {
            collector.results.append($0)
        } error: { _, error in
            Issue.record(error)
        }
        return engine
    }

    @Test("the deepest node's result has its whole path; the snapshot comes whole, linear in the nodes", arguments: SnapshotFormat.allCases)
    func resultAndSnapshot(format: SnapshotFormat) throws {
        let collector = Collector()
        let engine = try chainEngine(into: collector)
        engine.apply([TimedOperation(.event(id: NodeID(Self.depth + 1), name: "tap", properties: [:]), time: 6)]).forEach {
            collector.results.append($0)
        } error: { _, error in
            Issue.record(error)
        }
        #expect(collector.results.map(\.value) == [.number(Double(2 * Self.depth))])
        #expect(collector.results.first?.meta == ResultMeta(task: "n/n/tap", path: String(repeating: "/n", count: Self.depth), event: "tap"))
        let text = try engine.snapshot(format: format)
        switch format {
        case .markup:
            #expect(text.hasPrefix(#"<__root__ id="1" class="ana-node" createdAt="5">"#))
            let capped = String(repeating: " ", count: 64)  // the indent of level 32 and deeper
            #expect(text.contains("\n\(capped)<n id=\"\(Self.depth + 1)\" class=\"ana-node\" createdAt=\"5\">\n"))
            #expect(text.contains("\n\(capped)<tap class=\"ana-event\" time=\"6\" />\n\(capped)</n>\n"))
            #expect(text.hasSuffix("\n    </n>\n  </n>\n</__root__>"))
            #expect(text.components(separatedBy: "</n>").count == Self.depth + 1)
            #expect(text.utf8.count / Self.depth < 1024)
        case .json:
            #expect(text.hasPrefix(#"{"root":{"name":"__root__","id":"1","createdAt":5,"index":null,"attributes":{},"match":null"#))
            #expect(
                text.hasSuffix(
                    #""id":"\#(Self.depth + 1)","createdAt":5,"index":null,"attributes":{},"#
                        + #""match":{"branches":["tap"],"tasks":[{"path":"n/n/tap","file":"index.js"}]},"events":[{"name":"tap","time":6,"properties":{}}],"children":[]}"#
                        + String(repeating: "]}", count: Self.depth) + "}"))
            #expect(text.utf8.count / Self.depth < 256)
        }
    }
}
