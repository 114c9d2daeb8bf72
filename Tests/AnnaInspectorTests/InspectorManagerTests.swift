import Anna
import AnnaInspector
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// A module on disk: `task/index.js` with `tasks`, and `task/Link.js` (the namespace of
/// ``Link``'s analyzers) with `screenTasks`.
func writeModule(in folder: TemporaryFolder, tasks: String, screenTasks: String = "") throws {
    try folder.write("index.js", "module.exports = require('anna').configured({ task: __dirname + '/task' })")
    try folder.write("task/index.js", tasks)
    try folder.write("task/Link.js", screenTasks)
}

/// A responder that links to the next one.
final class Link: Responder, FocusPathConstituting, @unchecked Sendable {
    let next: (any Responder)?
    init(next: (any Responder)?) { self.next = next }
    var nextResponder: (any Responder)? { next }
}

/// The application at the top of the chain, owning the root analyzer.
final class App: Responder, Analyzable, @unchecked Sendable {
    var nextResponder: (any Responder)? { nil }
    let analyzer: any Analyzing
    init(manager: Manager) { analyzer = RootAnalyzer(manager: manager) }
}

@Suite("The inspector of a manager: JSON API, event stream, switches", .timeLimit(.minutes(5)))
struct InspectorManagerTests {
    /// A manager with an inspector, served; its app; a screen analyzer (namespace `Link`) named `screen`.
    struct Fixture {
        let folder: TemporaryFolder
        let manager: Manager
        let server: InspectorServer
        let client: InspectorClient
        let app: App
        let links: [Link]
        let screen: Analyzer

        init(tasks: String, screenTasks: String = "", token: String? = nil, resultLimit: Int? = nil) async throws {
            folder = try TemporaryFolder()
            try writeModule(in: folder, tasks: tasks, screenTasks: screenTasks)
            var configuration = InspectorConfiguration()
            if let resultLimit { configuration.resultLimit = resultLimit }
            let inspector = Inspector(configuration: configuration)
            var dependency = Manager.Dependency(standardOutput: MemoryOutputSink())
            dependency.inspector = inspector
            manager = Manager(moduleURL: folder.url, dependency: dependency)
            server = try await manager.startInspector(port: 0, token: token)
            client = InspectorClient(base: server.url, token: token)
            app = App(manager: manager)
            let link = Link(next: app)
            links = [link]
            screen = Analyzer(owner: link)
            screen.enable(naming: "screen")
        }
    }

    @Test("results, the tree, the tasks and the figures of a live manager reach the API")
    func liveManager() async throws {
        let fixture = try await Fixture(tasks: "match('screen/tap', (node) => ({ n: node.latestEvent().attributes.n }))")
        for n in 1...3 { fixture.screen.record("tap", with: ["n": .number(Double(n))]) }
        await fixture.manager.flush()
        try await waitFor { try await fixture.client.get("/api/results").body["results"]?.arrayValue?.count == 3 }
        let results = try await fixture.client.get("/api/results").body
        #expect(results["results"]?[0]?["value"] == ["n": 3])  // newest first
        #expect(results["results"]?[0]?["task"] == "screen/tap")
        #expect(results["results"]?[0]?["path"] == "/screen")
        #expect(try await fixture.client.get("/api/results?after=2").body["results"]?.arrayValue?.count == 1)
        let tree = try await fixture.client.get("/api/tree").body
        #expect(tree["root"]?["children"]?[0]?["name"] == "screen")
        let tasks = try await fixture.client.get("/api/tasks").body
        #expect(tasks["coverage"]?["tasks"]?[0]?["task"] == "screen/tap")
        #expect(tasks["coverage"]?["tasks"]?[0]?["matches"] == 3)
        #expect(tasks["coverage"]?["tasks"]?[0]?["location"]?["line"] == 1)
        let stats = try await fixture.client.get("/api/stats").body
        #expect(stats["events"] == 3)
        #expect(stats["results"] == 3)
        #expect(stats["latencySamples"]?.numberValue ?? 0 >= 1)
        #expect(stats["latencyP50Ms"]?.numberValue != nil)
        #expect(stats["heapBytes"]?.numberValue ?? 0 > 0)
        try await fixture.server.stop()
    }

    @Test("beyond the result limit the API serves the newest results and counts every one")
    func resultLimit() async throws {
        let fixture = try await Fixture(tasks: "match('screen/tap', (node) => node.latestEvent().attributes.n)", resultLimit: 3)
        fixture.manager.pause()
        for n in 1...5 { fixture.screen.record("tap", with: ["n": .number(Double(n))]) }
        fixture.manager.resume()
        for n in 6...8 { fixture.screen.record("tap", with: ["n": .number(Double(n))]) }
        await fixture.manager.flush()
        try await waitFor { try await fixture.client.get("/api/stats").body["results"] == 8 }
        let results = try await fixture.client.get("/api/results").body
        #expect(results["results"]?.arrayValue?.map { $0["value"] } == [8, 7, 6])
        #expect(results["results"]?.arrayValue?.map { $0["seq"] } == [8, 7, 6])
        #expect(results["cursor"] == 8)
        try await fixture.server.stop()
    }

    @Test("an error reaches the API with the task's file:line and the stack")
    func errors() async throws {
        let fixture = try await Fixture(tasks: "match('screen/tap', (node) => {\n  throw new Error('boom');\n})")
        fixture.screen.record("tap", with: nil)
        await fixture.manager.flush()
        try await waitFor { try await fixture.client.get("/api/errors").body["errors"]?.arrayValue?.count == 1 }
        let error = try await fixture.client.get("/api/errors").body["errors"]?[0]
        #expect(error?["level"] == "error")
        #expect(error?["task"] == "screen/tap")
        #expect(error?["location"]?.stringValue?.hasSuffix("task/index.js:2:18") == true)
        #expect(error?["stack"]?.stringValue?.contains("index.js") == true)
        #expect(error?["message"]?.stringValue?.contains("boom") == true)
        try await fixture.server.stop()
    }

    @Test("disabling a namespace's task file stops its results; enabling it brings them back")
    func disableNamespace() async throws {
        let fixture = try await Fixture(
            tasks: "match('screen/tap', () => 'index')", screenTasks: "match('screen/tap', () => 'screen')")
        fixture.screen.record("tap", with: nil)
        await fixture.manager.flush()
        let disabled = try await fixture.client.post("/api/tasks/disable", ["namespace": "Link"])
        #expect(disabled.status == 200)
        let tasks = try await fixture.client.get("/api/tasks").body
        #expect(tasks["disabled"]?[0]?.stringValue?.hasSuffix("task/Link.js") == true)
        fixture.screen.record("tap", with: nil)
        await fixture.manager.flush()
        #expect(try await fixture.client.post("/api/tasks/enable", ["namespace": "Link"]).status == 200)
        fixture.screen.record("tap", with: nil)
        await fixture.manager.flush()
        try await waitFor { try await fixture.client.get("/api/stats").body["results"] == 5 }
        let values = try await fixture.client.get("/api/results").body["results"]?.arrayValue?.reversed().map { $0["value"] }
        #expect(values == ["index", "screen", "index", "index", "screen"])
        let unknown = try await fixture.client.post("/api/tasks/disable", ["namespace": "Nope"])
        #expect(unknown.status == 400)
        #expect(unknown.body["error"] == "no registered node has the namespace 'Nope'")
        try await fixture.server.stop()
    }

    @Test("pause keeps operations queued (queue depth) and resume runs them")
    func pauseResume() async throws {
        let fixture = try await Fixture(tasks: "match('screen/tap', () => 1)")
        fixture.screen.record("tap", with: nil)
        await fixture.manager.flush()
        #expect(try await fixture.client.post("/api/pause").body["paused"] == true)
        for _ in 1...4 { fixture.screen.record("tap", with: nil) }
        #expect(fixture.manager.queuedOperationCount == 4)
        #expect(try await fixture.client.get("/api/stats").body["queueDepth"] == 4)
        #expect(try await fixture.client.post("/api/resume").body["paused"] == false)
        await fixture.manager.flush()
        try await waitFor { try await fixture.client.get("/api/stats").body["results"] == 5 }
        try await fixture.server.stop()
    }

    @Test("the event stream sends the state, the operations, and a result recorded while a client listens")
    func eventStream() async throws {
        let fixture = try await Fixture(tasks: "match('screen/tap', (node) => node.latestEvent().attributes.n)")
        let client = fixture.client
        async let read = client.readEvents(for: 20) { messages in
            messages.contains { $0.0 == "results" && $0.1[0]?["value"] == 42 } && messages.contains { $0.0 == "state" }
                && messages.contains { $0.0 == "operations" && $0.1[0]?["kind"] == "register" }
        }
        try await Task.sleep(for: .milliseconds(300))  // most likely connected; the result is sent either way
        fixture.screen.record("tap", with: ["n": 42])
        let (messages, found) = try await read
        #expect(found, "messages: \(messages.map(\.0))")
        try await fixture.server.stop()
    }

    @Test("with a token every API request needs it; writes need a JSON body; beyond loopback needs a token")
    func token() async throws {
        let fixture = try await Fixture(tasks: "", token: "s3cret")
        #expect(fixture.server.url.query == "token=s3cret")
        #expect(try await fixture.client.get("/api/state").status == 200)
        let anonymous = InspectorClient(base: fixture.server.url, token: nil)
        let refused = try await anonymous.get("/api/state")
        #expect(refused.status == 401)
        #expect(refused.body["error"] == "this inspector needs its token: Authorization: Bearer T, or ?token=T")
        #expect(try await anonymous.get("/api/state?token=s3cret").status == 200)
        #expect(try await anonymous.post("/api/pause").status == 401)
        #expect(try await fixture.client.post("/api/pause", [:], contentType: "text/plain").status == 415)
        let page = try await anonymous.text("/")
        #expect(page.status == 200)
        #expect(page.headers["Content-Security-Policy"].first?.contains("script-src 'self'") == true)
        try await fixture.server.stop()
        await #expect(throws: InspectorError.tokenRequired(host: "0.0.0.0")) {
            _ = try await fixture.manager.startInspector(port: 0, host: "0.0.0.0")
        }
    }

    @Test("startInspector on a manager made without an inspector says what to do")
    func withoutInspector() async throws {
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/nowhere"))
        await #expect(throws: InspectorError.managerWithoutInspector) { _ = try await manager.startInspector() }
    }
}

/// Polls `condition` every 20 ms for up to 20 s (a deadline for a loaded machine, not a
/// measure of speed); fails the test when it never holds.
func waitFor(_ condition: () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("the condition did not hold within 20 s", sourceLocation: sourceLocation)
}
