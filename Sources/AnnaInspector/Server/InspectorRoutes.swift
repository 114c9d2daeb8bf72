import Anna
import CoreJS
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The page's files and the JSON API (docs/inspector.md lists every route).
struct InspectorRoutes: Sendable {
    let server: ServerBox

    func register<Context: RequestContext>(on router: Router<Context>) {
        for (path, file) in [
            ("/", "inspector.html"), ("/index.html", "inspector.html"), ("/inspector.css", "inspector.css"), ("/inspector.js", "inspector.js"),
        ] {
            router.get(RouterPath(path)) { _, _ in try Self.page(file) }
        }
        router.get("/api/state") { _, _ in try await self.json { try await $0.inspector.stateJSON() } }
        router.get("/api/tree") { request, _ in try await self.tree(request) }
        router.get("/api/tasks") { _, _ in try await self.json { try await $0.inspector.tasksJSON() } }
        router.get("/api/results") { request, _ in
            let query = request.uri.queryParameters
            return try await self.json {
                $0.inspector.resultsJSON(
                    after: Self.integer("after", in: request) ?? 0, limit: Self.integer("limit", in: request), task: query.get("task"),
                    path: query.get("path"))
            }
        }
        router.get("/api/errors") { request, _ in try await self.json { $0.inspector.errorsJSON(after: Self.integer("after", in: request) ?? 0) } }
        router.get("/api/stats") { _, _ in try await self.json { await $0.figures.figures() } }
        router.get("/api/namespaces") { _, _ in try await self.json { $0.inspector.namespacesJSON() } }
        router.get("/api/timeline") { _, _ in try await self.json { $0.inspector.state.read().timeline.json } }
        router.get("/api/events") { _, _ in try self.eventStream() }
        router.post("/api/pause") { _, _ in try await self.write { try await $0.inspector.requireSubject().setPaused(true) } }
        router.post("/api/resume") { _, _ in try await self.write { try await $0.inspector.requireSubject().setPaused(false) } }
        router.post("/api/reload") { _, _ in try await self.write { try await $0.inspector.requireSubject().reloadTaskFiles() } }
        router.post("/api/debug") { request, context in
            try await self.write { server in
                guard let on = try await Self.body(request, context)["on"]?.boolValue else {
                    throw InspectorError.badRequest("send {\"on\": true} or {\"on\": false}")
                }
                try await server.inspector.requireSubject().setDebug(on)
            }
        }
        for (path, enabled) in [("/api/tasks/enable", true), ("/api/tasks/disable", false)] {
            router.post(RouterPath(path)) { request, context in
                try await self.write { try await $0.inspector.setTaskFile(try await Self.body(request, context), enabled: enabled) }
            }
        }
        router.post("/api/step") { _, _ in try await self.write { try await $0.inspector.requirePlayback().step() } }
        router.post("/api/jump") { request, context in
            try await self.write { server in
                guard let line = try await Self.body(request, context)["line"]?.safeIntegerValue, line >= 0 else {
                    throw InspectorError.badRequest("send {\"line\": N} with N ≥ 0")
                }
                try await server.inspector.requirePlayback().jump(toLine: line)
            }
        }
    }

    // MARK: - Answers

    /// An answer with a JSON body `{"error": message}`.
    static func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        jsonResponse(.fields(["error": .string(message)]), status: status)
    }

    static func jsonResponse(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        text(value.jsonText, type: "application/json; charset=utf-8", status: status)
    }

    static func text(_ text: String, type: String, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = type
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    private func json(_ body: (InspectorServer) async throws -> JSONValue) async throws -> Response {
        do {
            return Self.jsonResponse(try await body(try server.get()))
        } catch {
            return Self.failure(error)
        }
    }

    /// Runs a write, then answers with the state after it.
    private func write(_ body: (InspectorServer) async throws -> Void) async throws -> Response {
        do {
            let server = try server.get()
            try await body(server)
            return Self.jsonResponse(try await server.inspector.stateJSON())
        } catch {
            return Self.failure(error)
        }
    }

    private static func failure(_ error: any Error) -> Response {
        switch error {
        case let error as InspectorError:
            switch error {
            case .badRequest, .notARecordedStream: return problem(.badRequest, error.description)
            default: return problem(.serviceUnavailable, error.description)
            }
        case let error as HTTPError:
            return problem(error.status, error.body ?? "\(error.status)")
        default:
            return problem(.internalServerError, "\(error)")
        }
    }

    private static func integer(_ name: String, in request: Request) -> Int? {
        request.uri.queryParameters.get(name).flatMap { Int($0) }
    }

    /// The request's JSON body (at most 64 kB), an object.
    private static func body<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> JSONValue {
        var request = request
        let buffer = try await request.collectBody(upTo: 65_536)
        let text = String(buffer: buffer)
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text.isEmpty ? "{}" : text)
        } catch {
            throw InspectorError.badRequest("the body is not JSON: \(error)")
        }
        guard value.objectValue != nil else { throw InspectorError.badRequest("the body must be a JSON object") }
        return value
    }

    private func tree(_ request: Request) async throws -> Response {
        let format = request.uri.queryParameters.get("format") ?? "json"
        let download = request.uri.queryParameters.get("download") == "1"
        do {
            let server = try server.get()
            let (text, type, ending) = try await server.inspector.snapshot(format: format)
            var headers: HTTPFields = [:]
            if download { headers[.contentDisposition] = "attachment; filename=\"snapshot.\(ending)\"" }
            return Self.text(text, type: type, headers: headers)
        } catch {
            return Self.failure(error)
        }
    }

    /// A page file from the bundle.
    static func page(_ file: String) throws -> Response {
        let text = try PageFiles.read(file)
        let type =
            file.hasSuffix(".html")
            ? "text/html; charset=utf-8" : file.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8"
        return Self.text(text, type: type)
    }

    // MARK: - The event stream

    /// `text/event-stream`: every tick, what changed since the last one.
    private func eventStream() throws -> Response {
        let server = try server.get()
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                var feed = EventFeed(server: server)
                try await writer.write(ByteBuffer(string: ": anna inspector\nretry: 1000\n\n"))
                while !server.isStopping, !Task.isCancelled {
                    let text = await feed.next()
                    if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
                    try await Task.sleep(for: server.inspector.configuration.tick)
                }
                try await writer.finish(nil)
            })
    }
}
