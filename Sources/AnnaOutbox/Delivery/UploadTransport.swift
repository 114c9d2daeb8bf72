import AsyncHTTPClient
import CompressNIO
import CoreJS
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

    /// Sends one body, giving up after `timeout` (the whole exchange, the response body
    /// included); throws on a network failure or when the time runs out.
    func send(body: [UInt8], headers: [(String, String)], timeout: Duration) async throws -> UploadResponse
}

extension UploadTransport {
    /// A transport without a deadline of its own sends as ``send(body:headers:)`` does.
    public func send(body: [UInt8], headers: [(String, String)], timeout: Duration) async throws -> UploadResponse {
        try await send(body: body, headers: headers)
    }
}

/// A request that ran out of time: no answer, or not all of it, within the deadline.
public struct UploadTimeout: Error, CustomStringConvertible {
    /// The deadline that passed.
    public var timeout: Duration
    /// Whether the status had arrived (the body had not, in full).
    public var duringBody: Bool

    /// "no answer within 2 s", or "the answer's body stalled for 2 s".
    public var description: String {
        duringBody
            ? "the answer's body did not arrive within \(Seconds.text(timeout)) s"
            : "no answer within \(Seconds.text(timeout)) s"
    }
}

/// `POST` over an AsyncHTTPClient client of the outbox's own: redirects are not followed (a
/// 3xx is an answer, handled by ``RetryPolicy``), a refused connection fails at once rather
/// than being retried until the deadline, and the deadline covers the response body.
public struct HTTPUploadTransport: UploadTransport {
    /// Where batches go.
    public let url: String
    /// How long one request may take.
    public let timeout: Duration
    /// The most bytes of a response body kept; reading stops there.
    public let maximumKeptBytes: Int

    /// One client for every transport: never shut down, like AsyncHTTPClient's shared one.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// A transport posting to `url`.
    /// - Throws: ``OutboxError/invalidURL(_:)`` unless `url` is http(s).
    public init(url: String, timeout: Duration = .seconds(30), maximumKeptBytes: Int = 4096) throws(OutboxError) {
        guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https",
            URL(string: url)?.host != nil
        else { throw .invalidURL(url) }
        self.url = url
        self.timeout = timeout
        self.maximumKeptBytes = max(0, maximumKeptBytes)
    }

    /// Posts `body` within the transport's own timeout.
    public func send(body: [UInt8], headers: [(String, String)]) async throws -> UploadResponse {
        try await send(body: body, headers: headers, timeout: timeout)
    }

    /// Posts `body`; the status, `Retry-After` and the body's start come back, all within
    /// `timeout` (and the transport's own timeout, whichever is shorter).
    public func send(body: [UInt8], headers: [(String, String)], timeout: Duration) async throws -> UploadResponse {
        let limit = Seconds.clamped(min(timeout, self.timeout))
        let deadline = NIODeadline.now() + .nanoseconds(Int64(limit.inSeconds * 1e9))
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers = HTTPHeaders(headers)
        request.body = .bytes(ByteBuffer(bytes: body))
        let response: HTTPClientResponse
        do {
            response = try await Self.client.execute(request, deadline: deadline)
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw UploadTimeout(timeout: limit, duringBody: false)
        }
        let maximumKeptBytes = maximumKeptBytes
        let reader = Task {
            var kept: [UInt8] = []
            for try await chunk in response.body {
                kept.append(contentsOf: chunk.readableBytesView.prefix(maximumKeptBytes - kept.count))
                if kept.count >= maximumKeptBytes { break }  // the rest is not read
            }
            return kept
        }
        guard let kept = try await Self.value(of: reader, before: deadline) else {
            throw UploadTimeout(timeout: limit, duringBody: true)
        }
        return UploadResponse(
            status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
            body: String(decoding: kept, as: UTF8.self))
    }
}

extension HTTPUploadTransport {
    /// The value of `task`, or nil (the task cancelled) when `deadline` comes first. It never
    /// waits for the task past the deadline: a body read stalled on a silent connection may
    /// not end when cancelled, and the uploader must go on.
    static func value<Value: Sendable>(of task: Task<Value, any Error>, before deadline: NIODeadline) async throws -> Value? {
        let left = max(0, Int64(deadline.uptimeNanoseconds) - Int64(NIODeadline.now().uptimeNanoseconds))
        let timer = Task { try await Task.sleep(for: .nanoseconds(left)) }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value?, any Error>) in
            let resumed = Locked(false)
            let resume: @Sendable (Result<Value?, any Error>) -> Void = { result in
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(with: result) }
            }
            Task {
                do {
                    let value = try await task.value
                    timer.cancel()
                    resume(.success(value))
                } catch {
                    timer.cancel()
                    resume(.failure(error))
                }
            }
            Task {
                do {
                    try await timer.value
                    task.cancel()
                    resume(.success(nil))
                } catch {
                    // Cancelled: the task ended first and resumed.
                }
            }
        }
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
