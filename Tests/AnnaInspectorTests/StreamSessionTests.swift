import Anna
import AnnaInspector
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@Suite("A stream replayed under the inspector: play, step, jump, follow", .timeLimit(.minutes(5)))
struct StreamSessionTests {
    /// A session over `source` on `module`, started and served.
    func served(_ source: StreamSource, module: URL, playing: Bool = true) async throws -> (StreamSession, InspectorServer, InspectorClient) {
        let configuration = AnalyticsEngine.Configuration(moduleURL: module, console: Console(output: MemoryOutputSink()))
        let session = StreamSession(source: source, playing: playing) { try AnalyticsEngine(configuration: configuration) }
        try session.start()
        let server = try await session.inspector.start()
        return (session, server, InspectorClient(base: server.url, token: nil))
    }

    @Test("the demo session: every result, the tree as at the end, the timeline by line")
    func demo() async throws {
        let demo = RepositoryFixtures.demo
        let (session, server, client) = try await served(
            .file(path: demo.appendingPathComponent("session.ndjson").path, follow: false), module: demo.appendingPathComponent("module"))
        await session.waitUntilHandled()
        let expected = try String(contentsOf: demo.appendingPathComponent("expected-results.ndjson"), encoding: .utf8)
            .split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        let stats = try await client.get("/api/stats").body
        #expect(stats["results"]?.numberValue == Double(expected.count))
        #expect(stats["latencySamples"] == 0)  // lines read in bulk are not timed
        let results = try await client.get("/api/results").body["results"]?.arrayValue ?? []
        #expect(results.count == 500)
        #expect(results.reversed().map { $0["value"] } == expected.suffix(500).map { Optional($0) })
        let state = try await client.get("/api/state").body
        #expect(state["playback"]?["line"] == state["playback"]?["lineCount"])
        let tree = try await client.text("/api/tree?format=markup")
        #expect(tree.text.contains("<home id=\"2\""))
        let dot = try await client.text("/api/tree?format=dot&download=1")
        #expect(dot.text.hasPrefix("digraph focus {"))
        #expect(dot.text.contains("[label=\"home\\nlast: "))  // as anna snapshot --format dot writes it
        #expect(dot.headers["Content-Disposition"].first == "attachment; filename=\"snapshot.dot\"")
        let timeline = try await client.get("/api/timeline").body
        #expect(timeline["unit"] == "line")
        try await server.stop()
    }

    @Test("step and jump: the results and the tree are as of the line")
    func stepAndJump() async throws {
        let demo = RepositoryFixtures.demo
        let (session, server, client) = try await served(
            .file(path: demo.appendingPathComponent("session.ndjson").path, follow: false), module: demo.appendingPathComponent("module"),
            playing: false)
        try await waitFor { session.lineCount > 10 }
        #expect(try await client.get("/api/state").body["playback"]?["line"] == 0)
        let jumped = try await client.post("/api/jump", ["line": 7]).body
        #expect(jumped["playback"]?["line"] == 7)
        #expect(jumped["paused"] == true)
        let results = try await client.get("/api/results").body["results"]?.arrayValue ?? []
        #expect(results.map { $0["line"] } == [7, 5])
        #expect(try await client.post("/api/step").body["playback"]?["line"] == 8)
        let tree = try await client.get("/api/tree").body
        #expect(tree["root"]?["children"]?[0]?["name"] == "home")
        #expect(try await client.post("/api/jump", ["line": -1]).status == 400)
        try await server.stop()
    }

    @Test("a followed file: a line appended later is handled and its result served; a malformed line is an error with file:line")
    func follow() async throws {
        let folder = try TemporaryFolder()
        try writeModule(in: folder, tasks: "match('screen/tap', (node) => node.latestEvent().attributes.n)")
        let lines = [
            #"{"op":"register","id":1,"parent":null,"name":"__root__"}"#, #"{"op":"register","id":2,"parent":1,"name":"screen"}"#,
            #"{"op":"event","id":2,"name":"tap","properties":{"n":1}}"#,
        ]
        try folder.write("s.ndjson", lines.joined(separator: "\n") + "\n")
        let (session, server, client) = try await served(.file(path: folder.file("s.ndjson"), follow: true), module: folder.url)
        try await waitFor { try await client.get("/api/stats").body["results"] == 1 }
        try await Task.sleep(for: .milliseconds(300))  // the reader reaches the end (it looks every 50 ms): what follows is live
        let handle = try #require(FileHandle(forWritingAtPath: folder.file("s.ndjson")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((#"{"op":"event","id":2,"name":"tap","properties":{"n":2}}"# + "\nnot json\n").utf8))
        try handle.close()
        try await waitFor { try await client.get("/api/stats").body["results"] == 2 }
        #expect(try await client.get("/api/results").body["results"]?[0]?["value"] == 2)
        #expect(try await client.get("/api/stats").body["latencySamples"] == 1)  // the line appended after the end
        try await waitFor { try await client.get("/api/errors").body["errors"]?.arrayValue?.count == 1 }
        let message = try await client.get("/api/errors").body["errors"]?[0]?["message"]?.stringValue
        #expect(message?.hasPrefix(folder.file("s.ndjson") + ":5: ") == true)
        session.stop()
        try await server.stop()
    }
}
