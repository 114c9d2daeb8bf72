import Anna
import AnnaInspector
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// A followed file rotated under the session, as logrotate does it: truncated in place
/// (`copytruncate`) or moved away and created anew.
@Suite("A followed file that is truncated or replaced is read again from its start, said once", .timeLimit(.minutes(5)))
struct FollowRotationTests {
    static let head = [
        #"{"op":"register","id":1,"parent":null,"name":"__root__"}"#, #"{"op":"register","id":2,"parent":1,"name":"screen"}"#,
    ]

    static func tap(_ n: Int) -> String { #"{"op":"event","id":2,"name":"tap","properties":{"n":\#(n)}}"# + "\n" }

    /// Runs `body` on a followed session on `s.ndjson` (the head and tap 1, then `unfinished`
    /// without its line break), served, once it has read the whole file; stops the session and
    /// the server whatever `body` does.
    func withFollowed(
        unfinished: String = "", _ body: (TemporaryFolder, InspectorClient, Notices) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder()
        try writeModule(in: folder, tasks: "match('screen/tap', (node) => node.latestEvent().attributes.n)")
        try folder.write("s.ndjson", Self.head.joined(separator: "\n") + "\n" + Self.tap(1) + unfinished)
        let configuration = AnalyticsEngine.Configuration(moduleURL: folder.url, console: Console(output: MemoryOutputSink()))
        let notices = Notices()
        let session = StreamSession(
            source: .file(path: folder.file("s.ndjson"), follow: true), notice: { notices.add($0) },
            makeEngine: { try AnalyticsEngine(configuration: configuration) })
        try session.start()
        defer { session.stop() }
        let server = try await session.inspector.start()
        let client = InspectorClient(base: server.url, token: nil)
        do {
            // The file is one read (under 64 KiB): its 3 lines read means its unfinished tail was read too.
            try await waitFor { session.lineCount == 3 }
            try await waitFor { try await client.get("/api/stats").body["results"] == 1 }
            try await body(folder, client, notices)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }

    func values(_ client: InspectorClient) async throws -> [JSONValue?] {
        (try await client.get("/api/results").body["results"]?.arrayValue ?? []).reversed().map { $0["value"] }
    }

    @Test("truncated in place (copytruncate): what is written next is read from its start, never mid-line; said once")
    func truncated() async throws {
        try await withFollowed(unfinished: #"{"op":"event","id":2,"na"#) { folder, client, notices in
            let handle = try #require(FileHandle(forWritingAtPath: folder.file("s.ndjson")))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(Self.tap(2).utf8))  // shorter than what was read before
            try await waitFor { try await client.get("/api/stats").body["results"] == 2 }
            try handle.write(contentsOf: Data((Self.tap(3) + Self.tap(4) + Self.tap(5)).utf8))  // now longer than before
            try handle.close()
            try await waitFor { try await client.get("/api/stats").body["results"] == 5 }
            #expect(try await values(client) == [1, 2, 3, 4, 5])
            #expect(try await client.get("/api/errors").body["errors"]?.arrayValue?.isEmpty == true)  // no line read from its middle
            #expect(
                notices.lines == [
                    "\(folder.file("s.ndjson")) was truncated; reading from its start (an unfinished line of 24 bytes read before was dropped)"
                ])
        }
    }

    @Test("moved away and created anew: the new file is read from its start; said once")
    func replaced() async throws {
        try await withFollowed { folder, client, notices in
            try FileManager.default.moveItem(atPath: folder.file("s.ndjson"), toPath: folder.file("s.ndjson.1"))
            try folder.write("s.ndjson", Self.tap(2) + Self.tap(3))
            try await waitFor { try await client.get("/api/stats").body["results"] == 3 }
            #expect(try await values(client) == [1, 2, 3])
            #expect(notices.lines == ["\(folder.file("s.ndjson")) was replaced by a new file; reading it from its start"])
        }
    }
}

/// The notices a session gave, in order.
final class Notices: Sendable {
    private let kept = Locked<[String]>([])
    func add(_ line: String) { kept.withLock { $0.append(line) } }
    var lines: [String] { kept.withLock { $0 } }
}
