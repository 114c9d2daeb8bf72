import Anna
import AnnaInspector
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// The inspector against a hostile client, on its real server on 127.0.0.1, with requests
/// written byte for byte (no client library tidies their path or headers).
@Suite("The inspector refuses hostile requests: token, Host, writes, half-open connections", .timeLimit(.minutes(2)))
struct InspectorSecurityTests {
    /// Every route of the API, with its method.
    static let routes: [(String, String)] =
        ["state", "tree", "tasks", "results", "errors", "stats", "namespaces", "timeline", "events"].map { ("GET", "api/\($0)") }
        + ["pause", "resume", "reload", "debug", "tasks/enable", "tasks/disable", "step", "jump"].map { ("POST", "api/\($0)") }

    /// Ways of writing `/api/ROUTE` that a router may read as the route (or that must at least
    /// not pass without the token).
    static func spellings(of route: String) -> [String] {
        [
            "/\(route)", "//\(route)", "///\(route)", "/\(route.replacingOccurrences(of: "/", with: "//"))", "/./\(route)",
            "/api/./\(route.dropFirst(4))", "/%2F\(route)", "/\(route.uppercased())", "/\(route)/", "/\(route)?token=wrong",
            "/\(route)?x=1&token=", "http://127.0.0.1//\(route)",
        ]
    }

    @Test("with a token, every route in every spelling answers 401 without it; the page's files need none")
    func tokenOnEveryRoute() async throws {
        let fixture = try await InspectorManagerTests.Fixture(tasks: "", token: "s3cret")
        let port = fixture.server.port
        for (method, route) in Self.routes {
            for path in Self.spellings(of: route) {
                let answer = try await RawConnection.request(
                    port: port, "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n", body: "{}")
                #expect(answer.status == 401, "\(method) \(path) answered \(answer.status)")
            }
            let wrong = try await RawConnection.request(
                port: port, "\(method) /\(route) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer nope\r\nContent-Type: application/json\r\n",
                body: "{}")
            #expect(wrong.status == 401, "\(method) /\(route) with a wrong token answered \(wrong.status)")
        }
        for wrong in ["s3cre", "s3cretX", "S3CRET", ""] {
            let answer = try await RawConnection.request(port: port, "GET /api/state?token=\(wrong) HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(answer.status == 401, "token \(wrong)")
        }
        #expect(try await fixture.client.get("/api/state").body["paused"] == false)  // no write got through
        for path in ["/", "//", "/index.html", "//inspector.js", "/inspector.css"] {
            #expect(try await RawConnection.request(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n").status == 200, "\(path)")
        }
        #expect(
            try await RawConnection.request(port: port, "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\n").status
                == 200)
        #expect(try await RawConnection.request(port: port, "GET //api/state?token=s3cret HTTP/1.1\r\nHost: 127.0.0.1\r\n").status == 200)
        try await fixture.server.stop()
    }

    @Test("a write without Content-Type: application/json is refused (415) in any spelling; nothing is switched")
    func writesNeedJSON() async throws {
        let fixture = try await InspectorManagerTests.Fixture(tasks: "")
        let port = fixture.server.port
        let refusedTypes = [
            "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
            "application/jsonp", "text/plain; application/json", nil,
        ]
        for path in ["/api/pause", "//api/pause", "///api/debug", "/api//debug", "/nothing/here"] {
            for type in refusedTypes {
                let header = type.map { "Content-Type: \($0)\r\n" } ?? ""
                let answer = try await RawConnection.request(
                    port: port, "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(header)", body: #"{"on":true}"#)
                #expect(answer.status == 415, "POST \(path) as \(type ?? "no type") answered \(answer.status)")
            }
            for method in ["PUT", "DELETE", "PATCH"] {
                let answer = try await RawConnection.request(
                    port: port, "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n")
                #expect(answer.status == 415, "\(method) \(path) answered \(answer.status)")
            }
        }
        let state = try await fixture.client.get("/api/state")
        #expect(state.body["paused"] == false && state.body["debug"] == false)
        let accepted = try await RawConnection.request(
            port: port, "POST //api/pause HTTP/1.1\r\nHost: localhost\r\nContent-Type: Application/JSON; charset=utf-8\r\n", body: "{}")
        #expect(accepted.status == 200)
        #expect(try await fixture.client.get("/api/state").body["paused"] == true)
        try await fixture.server.stop()
    }

    @Test("on loopback only a Host of 127.0.0.0/8, [::1] or localhost is served (403 else), with a token too")
    func hostCheck() async throws {
        for token in [nil, "s3cret"] as [String?] {
            let fixture = try await InspectorManagerTests.Fixture(tasks: "", token: token)
            let port = fixture.server.port
            let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
            func status(_ host: String) async throws -> Int {
                try await RawConnection.request(port: port, "GET /api/state HTTP/1.1\r\nHost: \(host)\r\n\(authorization)").status
            }
            for host in ["127.0.0.1", "127.0.0.1:\(port)", "127.1.2.3:80", "localhost", "LOCALHOST:\(port)", "[::1]", "[::1]:\(port)"] {
                #expect(try await status(host) == 200, "Host: \(host)")
            }
            for host in [
                "127.attacker.example", "127.0.0.1.nip.io", "127.0.0.1.nip.io:\(port)", "localhost.attacker.example", "127.0.0.1:80x",
                "127.0.0.1:", "[::1]x", "::1", "[127.0.0.1]", "127.1", "127.0.0.256", "example.com", "10.0.0.1", "[::2]",
            ] {
                #expect(try await status(host) == 403, "Host: \(host)")
            }
            try await fixture.server.stop()
        }
    }

    @Test("an empty token is refused by the library, on any address")
    func emptyToken() async throws {
        let folder = try TemporaryFolder()
        let inspector = Inspector()
        var dependency = Manager.Dependency(standardOutput: MemoryOutputSink())
        dependency.inspector = inspector
        let manager = Manager(moduleURL: folder.url, dependency: dependency)
        for host in ["127.0.0.1", "0.0.0.0"] {
            await #expect(throws: InspectorError.emptyToken) { _ = try await manager.startInspector(port: 0, host: host, token: "") }
            await #expect(throws: InspectorError.emptyToken) {
                _ = try await Inspector(configuration: InspectorConfiguration(host: host, token: "")).start()
            }
        }
        #expect(InspectorError.emptyToken.description.contains("give a non-empty one"))
        #expect(LoopbackHost.isLoopback("127.255.0.1") && LoopbackHost.isLoopback("::1") && !LoopbackHost.isLoopback("127.0.0.1.nip.io"))
    }

    /// An inspector without a subject, served with a 1 s idle timeout and `maximumConnections`.
    static func server(
        maximumConnections: Int? = nil, idleTimeout: Duration = .seconds(1), onCapReached: (@Sendable (Int) -> Void)? = nil
    ) async throws -> InspectorServer {
        var configuration = InspectorConfiguration()
        configuration.idleTimeout = idleTimeout
        configuration.maximumConnections = maximumConnections
        configuration.onConnectionCapReached = onCapReached
        return try await Inspector(configuration: configuration).start()
    }

    @Test("a connection that sent half a request head, or half a body, is closed after the idle timeout")
    func halfOpenConnectionsClose() async throws {
        let server = try await Self.server()
        let halfHead = try RawConnection(port: server.port)
        try halfHead.send("GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        let silent = try RawConnection(port: server.port)
        let halfBody = try RawConnection(port: server.port)
        try halfBody.send("POST /api/debug HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        // Generous: the timeout is 1 s; a server that never closes fails after 20 s.
        #expect(try await halfHead.readUntilClosed(within: 20).closed)
        #expect(try await silent.readUntilClosed(within: 20).closed)
        #expect(try await halfBody.readUntilClosed(within: 20).closed)
        try await server.stop()
    }

    @Test("the event stream outlives the idle timeout: an answer being written is not idle")
    func eventStreamStaysOpen() async throws {
        let server = try await Self.server()
        let stream = try RawConnection(port: server.port)
        try stream.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        // The answer's head first (a generous deadline for a loaded machine), then 2.5 s, more
        // than twice the idle timeout, in which the open stream must not be closed.
        #expect(try await stream.read(until: "200 OK", within: 20).contains("200 OK"))
        let (_, closed) = try await stream.readUntilClosed(within: 2.5)
        #expect(!closed)
        try await server.stop()
    }

    @Test("beyond maximumConnections a new connection waits until one closes, then is served")
    func connectionCap() async throws {
        let said = Notices()
        let server = try await Self.server(maximumConnections: 2, idleTimeout: .seconds(60)) { said.add("cap \($0)") }
        let request = "GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let first = try RawConnection(port: server.port)
        try first.send(request)
        #expect(try await first.read(until: "</html>", within: 20).contains("200 OK"))
        let second = try RawConnection(port: server.port)
        try second.send(request)
        #expect(try await second.read(until: "</html>", within: 20).contains("200 OK"))
        let third = try RawConnection(port: server.port)
        try third.send(request)
        #expect(try await third.read(until: "</html>", within: 1.5).isEmpty)  // not accepted while two are open
        first.close()
        #expect(try await third.read(until: "</html>", within: 20).contains("200 OK"))
        second.close()
        let fourth = try RawConnection(port: server.port)  // reaches the cap again: not said again
        try fourth.send(request)
        #expect(try await fourth.read(until: "</html>", within: 20).contains("200 OK"))
        #expect(said.lines == ["cap 2"])
        try await server.stop()
        #expect(ConnectionCap.cap(forDescriptorLimit: 256) == 96 && ConnectionCap.cap(forDescriptorLimit: 1 << 20) == 1024)
        #expect(ConnectionCap.cap(forDescriptorLimit: 20) == 8)
    }
}
