import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@testable import Anna

@Suite("Redaction: keys out of results, recordings and the inspector's operations", .timeLimit(.minutes(5)))
struct RedactionTests {
    let redaction = Redaction(keys: ["email", "card.number"])

    @Test("a bare key goes at any depth, a dotted one at its path from the top, through arrays")
    func values() {
        let value: JSONValue = [
            "email": "a@b.c", "user": ["email": "x", "name": "Ann"], "card": ["number": "4111", "brand": "visa"],
            "list": [["email": "y", "n": 1], 2], "other": ["card": ["number": "kept"]],
        ]
        #expect(
            redaction.redact(value) == [
                "user": ["name": "Ann"], "card": ["brand": "visa"], "list": [["n": 1], 2], "other": ["card": ["number": "kept"]],
            ])
        #expect(redaction.redact(JSONValue.string("email")) == "email")
        #expect(Redaction().redact(value) == value)
    }

    @Test("an update of a redacted key loses its value; attributes and properties lose the keys; the rest stays")
    func operations() {
        let updated = { (keyPath: String) -> ModuleOperation in
            .event(id: NodeID(1), name: StandardEvent.updated, properties: [StandardEvent.keyPath: .string(keyPath), StandardEvent.value: "v"])
        }
        #expect(redaction.redact(updated("email")) == .event(id: NodeID(1), name: StandardEvent.updated, properties: ["key-path": "email"]))
        #expect(
            redaction.redact(updated("profile.email"))
                == .event(id: NodeID(1), name: StandardEvent.updated, properties: ["key-path": "profile.email"]))
        #expect(
            redaction.redact(updated("card.number")) == .event(id: NodeID(1), name: StandardEvent.updated, properties: ["key-path": "card.number"]))
        #expect(redaction.redact(updated("title")) == updated("title"))
        let register = ModuleOperation.register(
            id: NodeID(2), parent: NodeID(1), name: "form", index: nil, namespace: nil, attributes: ["email": "e", "role": "admin"])
        #expect(
            redaction.redact(register)
                == .register(id: NodeID(2), parent: NodeID(1), name: "form", index: nil, namespace: nil, attributes: ["role": "admin"]))
        #expect(
            redaction.redact(ModuleOperation.event(id: NodeID(1), name: "tap", properties: ["email": "e", "n": 1]))
                == .event(id: NodeID(1), name: "tap", properties: ["n": 1]))
        #expect(redaction.redact(TimedOperation(updated("email"), time: 7)).time == 7)
    }

    @Test("the results closure runs after the keys: it may change a result or drop it")
    func resultsClosure() {
        let dropping = Redaction(keys: ["email"]) { result in
            guard result.value["secret"] == nil else { return nil }
            var changed = result
            changed.value = result.value["email"] == nil ? result.value : "the key was still there"
            return changed
        }
        #expect(dropping.redact(AnalyticsResult(value: ["email": "e", "n": 1])) == AnalyticsResult(value: ["n": 1]))
        #expect(dropping.redact(AnalyticsResult(value: ["secret": true])) == nil)
    }

    /// A sink that keeps the values it is given.
    final class KeepingSink: ResultSink, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [JSONValue] = []
        private var keptTexts: [String] = []
        func append(_ result: AnalyticsResult, time: Double) throws {
            lock.withLock {
                kept.append(result.value)
                keptTexts.append(result.jsonText)
            }
        }
        var values: [JSONValue] { lock.withLock { kept } }
        var texts: [String] { lock.withLock { keptTexts } }
    }

    @Test("through a manager: the sink, the delegate and the recording never see a redacted key; a dropped result is no loss")
    func throughManager() async throws {
        let folder = try TemporaryFolder()
        let recording = folder.url.appendingPathComponent("recorded.ndjson")
        var dependency = Manager.Dependency(
            fileAccess: moduleFiles(
                tasks: """
                    match('login', (node) => ({ event: 'login', email: node.latestValue('email'), name: node.attributes.name }));
                    match('secret', () => ({ secret: true }));
                    """),
            standardOutput: MemoryOutputSink(), recordingURL: recording)
        dependency.redaction = Redaction(keys: ["email"]) { $0.value["secret"] == nil ? $0 : nil }
        let sink = KeepingSink()
        dependency.outbox = sink
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/m"), dependency: dependency)
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        manager.send(
            .register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: ["email": "r@x.y", "name": "Ann"]))
        manager.send(.event(id: NodeID(1), name: StandardEvent.updated, properties: ["key-path": "email", "value": "a@b.c"]))
        manager.send(.event(id: NodeID(1), name: "login", properties: [:]))
        manager.send(.event(id: NodeID(1), name: "secret", properties: [:]))
        manager.send(.event(id: NodeID(1), name: "login", properties: [:]))
        await manager.flush()
        #expect(delegate.values == [["event": "login", "name": "Ann"], ["event": "login", "name": "Ann"]])
        #expect(sink.values == delegate.values)
        // The engine's own text of a redacted result is not what the sink stores.
        #expect(sink.texts == sink.values.map(\.jsonText))
        let recorded = try String(contentsOf: recording, encoding: .utf8)
        #expect(!recorded.contains("a@b.c") && !recorded.contains("r@x.y"), "\(recorded)")
        #expect(recorded.contains(#""key-path":"email""#) && recorded.contains(#""name":"Ann""#))
    }
}
