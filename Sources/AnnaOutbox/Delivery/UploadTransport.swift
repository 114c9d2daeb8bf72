import AsyncHTTPClient
import CompressNIO
import Foundation
import NIOCore
import NIOHTTP1

/// A collector's answer to one batch.
public struct UploadResponse: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The `Retry-After` header, when there was one.
    public var retryAfter: String?
    /// The start of the response body (as much as the uploader keeps).
    public var body: String

    /// A response with every field given.
    public init(status: Int, retryAfter: String? = nil, body: String = "") {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
    }
}

/// How a batch travels: HTTP by default (``HTTPUploadTransport``); tests may capture bodies.
public protocol UploadTransport: Sendable {
    /// Sends one body with `headers`; throws on a network failure (no status received).
    func send(body: [UInt8], headers: [(String, String)]) async throws -> UploadResponse
}

/// `POST` over AsyncHTTPClient's shared client.
public struct HTTPUploadTransport: UploadTransport {
    /// Where batches go.
    public let url: String
    /// How long one request may take.
    public let timeoutSeconds: Double
    /// The most bytes of a response body kept.
    public let maximumKeptBytes: Int

    /// A transport posting to `url`.
    /// - Throws: ``OutboxError/invalidURL(_:)`` unless `url` is http(s).
    public init(url: String, timeoutSeconds: Double = 30, maximumKeptBytes: Int = 4096) throws(OutboxError) {
        guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https",
            URL(string: url)?.host != nil
        else { throw .invalidURL(url) }
        self.url = url
        self.timeoutSeconds = timeoutSeconds
        self.maximumKeptBytes = maximumKeptBytes
    }

    /// Posts `body`; the status, `Retry-After` and the body's start come back.
    public func send(body: [UInt8], headers: [(String, String)]) async throws -> UploadResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers = HTTPHeaders(headers)
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeoutSeconds * 1000)))
        var kept: [UInt8] = []
        for try await chunk in response.body where kept.count < maximumKeptBytes {
            kept.append(contentsOf: chunk.readableBytesView.prefix(maximumKeptBytes - kept.count))
        }
        return UploadResponse(
            status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
            body: String(decoding: kept, as: UTF8.self))
    }
}

enum BodyCompression {
    /// `bytes` gzip-compressed.
    static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        var buffer = ByteBuffer(bytes: bytes)
        let compressed = try buffer.compress(with: .gzip())
        return Array(compressed.readableBytesView)
    }
}
