import AsyncHTTPClient
import CoreJS
import Foundation
import NIOCore
import NIOHTTP1

/// A client of an inspector's API for the tests (AsyncHTTPClient).
struct InspectorClient: Sendable {
    let base: URL
    var token: String?

    /// The status and JSON body of `GET path`.
    func get(_ path: String, headers extra: [(String, String)] = []) async throws -> (status: Int, body: JSONValue) {
        try await send("GET", path, body: nil, headers: extra)
    }

    /// The status and JSON body of `POST path` with a JSON body.
    func post(_ path: String, _ body: JSONValue = [:], contentType: String = "application/json") async throws -> (status: Int, body: JSONValue) {
        try await send("POST", path, body: body.jsonText, headers: [("Content-Type", contentType)])
    }

    /// The raw text of `GET path`.
    func text(_ path: String) async throws -> (status: Int, text: String, headers: HTTPHeaders) {
        let response = try await HTTPClient.shared.execute(request("GET", path, body: nil, headers: []), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), String(buffer: body), response.headers)
    }

    private func send(_ method: String, _ path: String, body: String?, headers: [(String, String)]) async throws -> (status: Int, body: JSONValue) {
        let response = try await HTTPClient.shared.execute(request(method, path, body: body, headers: headers), timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 16 << 20))
        return (Int(response.status.code), try JSONValue(parsing: text))
    }

    private func request(_ method: String, _ path: String, body: String?, headers: [(String, String)]) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url(path))
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        return request
    }

    /// `path` on the server (the base's query, the token, left out).
    func url(_ path: String) -> String {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.path = ""
        return (components?.string ?? "") + path
    }

    /// Reads the event stream until `found` returns true for the messages so far (`event` name
    /// and data of each), or `seconds` pass; returns the messages read and whether `found` held.
    func readEvents(for seconds: Double, until found: @escaping @Sendable ([(String, JSONValue)]) -> Bool) async throws -> (
        messages: [(String, JSONValue)], found: Bool
    ) {
        var request = HTTPClientRequest(url: url("/api/events"))
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await HTTPClient.shared.execute(request, deadline: .now() + .seconds(Int64(seconds) + 5))
        var messages: [(String, JSONValue)] = []
        var buffer = ""
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        for try await chunk in response.body {
            buffer += String(buffer: chunk)
            while let end = buffer.range(of: "\n\n") {
                let block = String(buffer[..<end.lowerBound])
                buffer.removeSubrange(..<end.upperBound)
                var name = "message"
                var data = ""
                for line in block.split(separator: "\n") {
                    if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
                }
                guard !data.isEmpty else { continue }
                let value = try JSONValue(parsing: data)
                messages.append((name, value))
                if found(messages) { return (messages, true) }
            }
            if ContinuousClock.now > deadline { break }
        }
        return (messages, false)
    }
}
