import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@testable import Anna

/// `AnalyticsResult.jsonText`: a sink gets the engine's own text of each result (no second
/// encoding), and never a text that is not the value's.
@Suite("A result's JSON text", .timeLimit(.minutes(2)))
struct ResultJSONTextTests {
    /// A sink that keeps each result's value and text.
    final class TextSink: ResultSink, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [(value: JSONValue, text: String)] = []
        func append(_ result: AnalyticsResult, time: Double) throws { lock.withLock { kept.append((result.value, result.jsonText)) } }
        var results: [(value: JSONValue, text: String)] { lock.withLock { kept } }
    }

    @Test("a sink gets the text JavaScript wrote; a value cut for depth gets its own")
    func sinkGetsTheEnginesText() async throws {
        var dependency = Manager.Dependency(
            fileAccess: moduleFiles(
                tasks: """
                    match('plain', () => ({ b: 1, a: [true, null], s: 'x\\u00e9\\n', big: 1e21, half: -0.5 }));
                    match('deep', () => { let v = 0; for (let i = 0; i < 600; i++) v = [v]; return { v }; });
                    """),
            standardOutput: MemoryOutputSink())
        let sink = TextSink()
        dependency.outbox = sink
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/m"), dependency: dependency)
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        manager.send(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: [:]))
        manager.send(.event(id: NodeID(1), name: "plain", properties: [:]))
        manager.send(.event(id: NodeID(1), name: "deep", properties: [:]))
        await manager.flush()
        let results = sink.results
        try #require(results.count == 2)
        #expect(results[0].text == #"{"b":1,"a":[true,null],"s":"xé\n","big":1e+21,"half":-0.5}"#)
        #expect(try JSONValue(parsing: results[0].text) == results[0].value)
        // The engine wrote 600 levels; the value holds the cut ones, and so does its text.
        #expect(results[1].text == results[1].value.jsonText && results[1].text.contains("[Too deep]"))
        #expect(delegate.values == results.map(\.value))
    }

    @Test("changing the value drops the engine's text; equality looks at values, not texts")
    func valueChangesAndEquality() throws {
        let decoded = try decodedResults(of: #"[{"a" : 1}]"#)
        try #require(decoded.count == 1)
        #expect(decoded[0].jsonText == #"{"a" : 1}"#, "kept as written")
        #expect(decoded[0] == AnalyticsResult(value: ["a": 1]))
        var changed = decoded[0]
        changed.value = ["a": 2]
        #expect(changed.jsonText == #"{"a":2}"#)
        #expect(AnalyticsResult(value: ["a": 1]).jsonText == #"{"a":1}"#)
    }

    @Test("without a listener that stores text, results keep none")
    func noTextUnlessAsked() throws {
        let results = try decodedResults(of: #"[{"a" : 1}]"#, keepingText: false)
        #expect(results.map(\.jsonText) == [#"{"a":1}"#])
    }

    private func decodedResults(of text: String, keepingText: Bool = true) throws -> [AnalyticsResult] {
        var results: [AnalyticsResult] = []
        try PendingResults(text: Array(text.utf8), index: [0, -1], metas: []).forEachResult(keepingText: keepingText) { results.append($1) }
        return results
    }
}
