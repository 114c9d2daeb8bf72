// One suite for the engine's module protocol, kept whole: its cases share one set-up.
import Anna
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@Suite("Loading analytics modules and driving them through the module protocol")
struct AnalyticsEngineTests {
    final class Collector {
        var results: [AnalyticsResult] = []
    }

    let console = MemoryOutputSink()

    func engine(
        _ module: URL = Fixtures.shopModule, debug: Bool = false, files: (any FileAccess)? = nil,
        roots: [URL] = [], limit: Double = 2
    ) throws -> AnalyticsEngine {
        try AnalyticsEngine(
            configuration: .init(
                moduleURL: module, debug: debug, additionalAllowedRoots: roots, executionTimeLimit: .seconds(limit),
                fileAccess: files ?? LocalFileAccess(), console: Console(output: console)))
    }

    @Test("results come back with their task, path and event")
    func resultsWithMeta() throws {
        let collector = Collector()
        let engine = try engine()
        collector.results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        collector.results += try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "home")
        collector.results += try engine.registerNode(id: NodeID(owner: 2, keys: [.name("list")]), parent: NodeID(2), name: "list")
        collector.results += try engine.registerNode(id: NodeID(3), parent: NodeID(owner: 2, keys: [.name("list")]), name: "item", index: 4)
        collector.results += try engine.recordEvent(name: "ana-appeared", nodeID: NodeID(2))
        collector.results += try engine.recordEvent(name: "ana-updated", properties: ["key-path": "title", "value": "Boots"], nodeID: NodeID(3))
        collector.results += try engine.recordEvent(name: "did-select", nodeID: NodeID(3))
        #expect(
            collector.results == [
                AnalyticsResult(
                    value: ["action": "viewed", "screen": "/home"],
                    meta: ResultMeta(task: "/home/ana-appeared", path: "/home", event: "ana-appeared")),
                AnalyticsResult(
                    value: ["action": "selected", "item": 4, "title": "Boots"],
                    meta: ResultMeta(task: "list/item/did-select", path: "/home/list/item", event: "did-select")),
            ])
    }

    @Test("a namespace loads its task file, which may require helpers")
    func namespaceTasks() throws {
        let collector = Collector()
        let engine = try engine()
        collector.results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        collector.results += try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "cart", namespace: "Shop.Cart")
        collector.results += try engine.registerNode(id: NodeID(3), parent: NodeID(2), name: "line")
        collector.results += try engine.recordEvent(name: "did-select", properties: ["cents": 1250], nodeID: NodeID(3))
        #expect(collector.results.map(\.value) == [["action": "cart-line", "price": "$12.50"]])
    }

    @Test("a module built on a protocol-only core works; its results have no meta")
    func protocolOnlyCore() throws {
        let collector = Collector()
        let engine = try engine(Fixtures.protocolModule, roots: [RepositoryFixtures.folder])
        collector.results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        collector.results += try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "master")
        collector.results += try engine.registerNode(id: NodeID(owner: 2, keys: [.name("table")]), parent: NodeID(2), name: "table")
        collector.results += try engine.registerNode(id: NodeID(9), parent: NodeID(owner: 2, keys: [.name("table")]), name: "cell", index: 3)
        collector.results += try engine.recordEvent(name: "ana-appeared", nodeID: NodeID(2))
        collector.results += try engine.recordEvent(name: "did-select", nodeID: NodeID(9))
        #expect(
            collector.results == [
                AnalyticsResult(value: ["action": "appeared", "path": "/master"]),
                AnalyticsResult(value: ["action": "selected", "index": 3]),
            ])
        let failure = #expect(throws: AnalyticsError.self) { try engine.recordEvent(name: "fail", nodeID: NodeID(2)) }
        #expect(failure?.exception?.message.contains("task failed on purpose") == true)
        collector.results += try engine.deregisterNodes(id: NodeID(2))
        #expect(throws: AnalyticsError.self) { try engine.recordEvent(name: "did-select", nodeID: NodeID(9)) }
    }

    @Test("the module protocol module may not reach outside its folder unless allowed")
    func rootsApplyToModules() throws {
        let error = #expect(throws: AnalyticsError.self) { try engine(Fixtures.protocolModule) }
        guard case let .moduleLoadFailed(module, cause)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(module.hasSuffix("fixtures/protocol-module"))
        #expect(cause.exception?.message.hasPrefix("Access denied: module '../protocol-core'") == true)
    }

    @Test("a failing task does not stop the others; its failure names task, path and event")
    func taskFailure() throws {
        let collector = Collector()
        let engine = try taskEngine(
            """
            match('screen/tap', () => 'first');
            match('screen/tap', (node) => { throw new RangeError('bad index ' + node.index) });
            match('tap', () => 'third');
            """)
        collector.results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        collector.results += try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "screen", index: 5)
        var error: AnalyticsError?
        engine.apply([TimedOperation(.event(id: NodeID(2), name: "tap", properties: [:]))]).forEach {
            collector.results.append($0)
        } error: {
            error = $1
        }
        #expect(collector.results.map(\.value) == ["first", "third"])
        guard case let .tasksFailed(failures)? = error else {
            Issue.record("expected tasksFailed, got \(String(describing: error))")
            return
        }
        #expect(failures.count == 1)
        #expect(failures.first?.task == "screen/tap")
        #expect(failures.first?.path == "/screen")
        #expect(failures.first?.event == "tap")
        #expect(failures.first?.message.contains("bad index 5") == true)
        #expect(failures.first?.stack?.contains("/m/task/index.js:2") == true)
    }

    @Test("an event on an unknown node is an error naming the event and the node")
    func unknownNode() throws {
        let engine = try engine()
        try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        let error = #expect(throws: AnalyticsError.self) { try engine.recordEvent(name: "did-select", nodeID: NodeID(42)) }
        #expect(error?.description.contains("did-select") == true)
        #expect(error?.description.contains("42") == true)
    }

    @Test("module load failures are reported with file and line")
    func loadFailures() throws {
        let missing = #expect(throws: AnalyticsError.self) {
            try inMemoryEngine(InMemoryFileAccess(["/m/other.js": ""]))
        }
        #expect(missing?.exception?.message == "'/m' is a folder without index.js")

        let syntax = #expect(throws: AnalyticsError.self) {
            try inMemoryEngine(InMemoryFileAccess(["/m/index.js": "const a = 1;\nmodule.exports = ;"]))
        }
        #expect(syntax?.exception?.name == "SyntaxError")
        #expect(syntax?.exception?.location?.hasPrefix("/m/index.js:2") == true)

        let notConstructor = #expect(throws: AnalyticsError.self) {
            try inMemoryEngine(InMemoryFileAccess(["/m/index.js": "module.exports = { not: 'a constructor' }"]))
        }
        #expect(notConstructor == .moduleNotConstructor(module: "/m", found: "[object Object]"))
    }

    @Test("the clock the host sets is the clock tasks see")
    func hostClock() throws {
        let collector = Collector()
        let engine = try taskEngine("match('tick', (node) => node.latestEvent().attributes.time)")
        engine.time = 1_700_000_000_000
        collector.results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        collector.results += try engine.recordEvent(name: "tick", nodeID: NodeID(1))
        engine.time = 1_700_000_000_250
        collector.results += try engine.recordEvent(name: "tick", nodeID: NodeID(1))
        #expect(collector.results.map(\.value) == [1_700_000_000_000, 1_700_000_000_250])
        #expect(try engine.snapshot(format: .markup).contains(#"createdAt="1700000000000""#))
    }

    @Test("each result carries the time of the operation that produced it, given or not")
    func resultTimes() throws {
        let engine = try taskEngine("match('tap', (node) => node.latestEvent().attributes.n)")
        let lastMonth = 1_792_000_000_000.0  // 2026-10-15, a replayed session's clock
        var operations = [
            TimedOperation(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil), time: lastMonth)
        ]
        for n in 0..<3 {
            operations.append(
                TimedOperation(.event(id: NodeID(1), name: "tap", properties: ["n": .number(Double(n))]), time: lastMonth + Double(n) * 1000))
        }
        operations.append(TimedOperation(.event(id: NodeID(1), name: "tap", properties: ["n": 3])))
        let results = engine.apply(operations).results
        #expect(results.map(\.value) == [0, 1, 2, 3])
        #expect(results.map(\.time) == [lastMonth, lastMonth + 1000, lastMonth + 2000, nil])
    }

    @Test("a task that never ends is stopped; the next event is handled")
    func runawayTask() throws {
        let collector = Collector()
        let engine = try taskEngine("match('spin', () => { for (;;) {} }); match('ok', () => 'fine')", limit: 0.2)
        collector.results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        let error = #expect(throws: AnalyticsError.self) { try engine.recordEvent(name: "spin", nodeID: NodeID(1)) }
        #expect(error?.description.contains("recording 'spin' on node 1 failed: execution time limit exceeded: task 'spin' (") == true)
        collector.results += try engine.recordEvent(name: "ok", nodeID: NodeID(1))
        #expect(collector.results.map(\.value) == ["fine"])
    }

    @Test("a task stopped by the time limit inside a batch is blamed once; the others run once")
    func timeLimitInBatch() throws {
        let collector = Collector()
        let engine = try taskEngine(
            """
            match('spin', () => { for (;;) {} });
            match('tap', (node) => node.latestEvent().attributes.n);
            match('count', (node) => { let n = 0; for (let i = 0; i < 10; i++) { const e = node.ancestor(0); } return globalThis.taps = (globalThis.taps || 0) + 1; });
            """, limit: 0.3)
        var operations = [TimedOperation(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil))]
        for n in 0..<20 { operations.append(TimedOperation(.event(id: NodeID(1), name: "tap", properties: ["n": .number(Double(n))]))) }
        operations.append(TimedOperation(.event(id: NodeID(1), name: "spin", properties: [:])))
        for n in 20..<40 { operations.append(TimedOperation(.event(id: NodeID(1), name: "tap", properties: ["n": .number(Double(n))]))) }
        var errors: [(Int, AnalyticsError)] = []
        engine.apply(operations).forEach(result: { collector.results.append($0) }, error: { errors.append(($0, $1)) })
        #expect(collector.results.map(\.value) == (0..<40).map { .number(Double($0)) })
        #expect(errors.count == 1)
        #expect(errors.first?.0 == 21)
        #expect(errors.first?.1.description.contains("recording 'spin' on node 1 failed: execution time limit exceeded: task 'spin' (") == true)
    }

    @Test("long strings and nested values reach tasks in every batch of a long run, also after a time-out")
    func literalsAcrossBatches() throws {
        let collector = Collector()
        let engine = try taskEngine(
            """
            match('spin', () => { for (;;) {} });
            match('say', (node) => [node.latestEvent().attributes.text, node.latestEvent().attributes.list]);
            """, limit: 0.3)
        func text(_ n: Int) -> String { "text \(n) " + String(repeating: "long ", count: 20) }
        func say(_ n: Int) -> TimedOperation {
            TimedOperation(.event(id: NodeID(1), name: "say", properties: ["text": .string(text(n)), "list": [.number(Double(n))]]))
        }
        var operations = [TimedOperation(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil))]
        operations += (0..<600).map(say)  // more than one batch
        operations.append(TimedOperation(.event(id: NodeID(1), name: "spin", properties: [:])))
        operations += (600..<620).map(say)  // one operation per call after the time-out
        var errors: [Int] = []
        engine.apply(operations).forEach(result: { collector.results.append($0) }, error: { position, _ in errors.append(position) })
        #expect(errors == [601])
        #expect(collector.results.map(\.value) == (0..<620).map { n in [.string(text(n)), [.number(Double(n))]] })
    }

    @Test("results nested deeper than the parser reads, and cyclic results, arrive with the right meta")
    func unusualResults() throws {
        let collector = Collector()
        let engine = try taskEngine(
            """
            match('deep', () => { let v = 'bottom'; for (let i = 0; i < 600; i++) v = [v]; return v; });
            match('cycle', () => { const o = { name: 'loop' }; o.self = o; return o; });
            match('error', () => new RangeError('as data'));
            match('plain', (node) => node.path);
            """)
        var operations = [TimedOperation(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil))]
        for event in ["deep", "plain", "cycle", "error", "plain"] {
            operations.append(TimedOperation(.event(id: NodeID(1), name: event, properties: [:])))
        }
        engine.apply(operations).forEach(result: { collector.results.append($0) }, error: { _, error in Issue.record("\(error)") })
        let values = collector.results.map(\.value)
        #expect(values.count == 5)
        var deep = values.first
        var depth = 0
        while case let .array(inner)? = deep, let first = inner.first {
            deep = first
            depth += 1
        }
        #expect(depth == JSONValue.maximumDepth && deep == "[Too deep]", "cut at the documented depth")
        #expect(values.dropFirst().first == "")
        #expect(values.last == "")
        #expect(values.dropFirst(2).first == ["name": "loop", "self": "[Circular]"])
        #expect(values.dropFirst(3).first == ["name": "RangeError", "message": "as data"], "an Error arrives as its name and message")
        #expect(collector.results.map { $0.meta?.task } == ["deep", "plain", "cycle", "error", "plain"])
    }

    @Test("property strings reach tasks byte for byte (NUL, decomposed characters)")
    func exactStrings() throws {
        let collector = Collector()
        let engine = try taskEngine(
            "match('say', (node) => [node.latestEvent().attributes.text.length, node.latestEvent().attributes.text])")
        collector.results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        collector.results += try engine.recordEvent(name: "say", properties: ["text": "\u{E9}"], nodeID: NodeID(1))
        collector.results += try engine.recordEvent(name: "say", properties: ["text": "e\u{301}"], nodeID: NodeID(1))
        collector.results += try engine.recordEvent(name: "say", properties: ["text": "a\u{0}b"], nodeID: NodeID(1))
        #expect(collector.results.map(\.value) == [[1, "\u{E9}"], [2, "e\u{301}"], [3, "a\u{0}b"]])
        #expect(collector.results[0].value.jsonText != collector.results[1].value.jsonText)
    }

    @Test("snapshots come in markup and JSON with the same nodes")
    func snapshots() throws {
        let engine = try engine()
        engine.time = 1000
        try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "home", attributes: ["title": "A & B"])
        try engine.recordEvent(name: "ana-appeared", nodeID: NodeID(2))
        let markup = try engine.snapshot(format: .markup)
        #expect(markup.hasPrefix(#"<__root__ id="1" class="ana-node" createdAt="1000">"#))
        #expect(markup.contains(#"<home id="2" class="ana-node" createdAt="1000" title="A &amp; B">"#))
        #expect(markup.contains(#"<ana-appeared class="ana-event" time="1000" />"#))
        let json = try JSONValue(parsing: engine.snapshot(format: .json))
        #expect(json.jsonText.contains(#""name":"home""#))
        try engine.logSnapshot()
        #expect(console.text == markup + "\n")
    }

    @Test("debug mode re-requires a namespace's task file when another node of the namespace registers", arguments: [true, false])
    func debugReload(debug: Bool) throws {
        let files = moduleFiles(tasks: "", extra: ["/m/task/Screen.js": "match('tap', () => 'v1')"])
        let collector = Collector()
        let engine = try engine(URL(fileURLWithPath: "/m"), debug: debug, files: files)
        collector.results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
        collector.results += try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "first", namespace: "Screen")
        collector.results += try engine.recordEvent(name: "tap", nodeID: NodeID(2))

        files.write("match('tap', () => 'v2')", to: "/m/task/Screen.js")
        collector.results += try engine.registerNode(id: NodeID(3), parent: NodeID(1), name: "second", namespace: "Screen")
        collector.results += try engine.recordEvent(name: "tap", nodeID: NodeID(3))

        #expect(collector.results.map(\.value) == ["v1", debug ? "v2" : "v1"])
    }

    /// An engine on an in-memory module whose task folder holds `tasks` in `index.js`.
    private func taskEngine(_ tasks: String, limit: Double = 2) throws -> AnalyticsEngine {
        try engine(URL(fileURLWithPath: "/m"), files: moduleFiles(tasks: tasks), limit: limit)
    }

    private func inMemoryEngine(_ files: InMemoryFileAccess) throws -> AnalyticsEngine {
        try engine(URL(fileURLWithPath: "/m"), files: OverlayFiles(files))
    }
}

@Suite("Naming the core by relative path")
struct RelativeCoreTests {
    @Test("a module may require the core by a relative path (the reference's sibling layout)")
    func relativeCore() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("anna-relative-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base.appendingPathComponent("app/analytics/task"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: BundledCore.folderURL, to: base.appendingPathComponent("app/anna"))
        try "module.exports = require('../anna').configured({ task: __dirname + '/task' });".write(
            to: base.appendingPathComponent("app/analytics/index.js"), atomically: true, encoding: .utf8)
        try "match('/tap', () => 'relative core')".write(
            to: base.appendingPathComponent("app/analytics/task/index.js"), atomically: true, encoding: .utf8)
        var results: [JSONValue] = []
        let engine = try AnalyticsEngine(
            configuration: .init(
                moduleURL: base.appendingPathComponent("app/analytics"), coreURL: base.appendingPathComponent("app/anna"),
                console: Console(output: MemoryOutputSink())))
        results += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__").map(\.value)
        results += try engine.recordEvent(name: "tap", nodeID: NodeID(1)).map(\.value)
        #expect(results == ["relative core"])
    }
}
