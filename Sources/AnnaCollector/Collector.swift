import AnnaOutbox
import AnnaServing
import CompressNIO
import CoreJS
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import UnixSignals

/// A development collector: accepts the outbox's upload body on `POST` (any path), stores
/// each message once by its ID, prints a line per batch, and injects the failures its
/// ``FailureInjection`` asks for.
public final class Collector: Sendable {
    /// One request as the collector saw it.
    public struct RequestRecord: Sendable, Equatable {
        /// The request's number, from 1.
        public var number: Int
        /// The status answered (0: the connection was dropped).
        public var status: Int
        /// Messages in the batch (0 when it was not read).
        public var count: Int
        /// Messages not seen before, stored.
        public var new: Int
        /// The message IDs of the batch, in order.
        public var messageIds: [String]
        /// `X-Anna-Retry-Count`.
        public var retryCount: String?
        /// `Authorization`.
        public var authorization: String?
        /// `Content-Encoding`.
        public var contentEncoding: String?
        /// `Content-Type`.
        public var contentType: String?
        /// Why a body was refused as malformed.
        public var malformed: String?
    }

    private static let retryCountField = HTTPField.Name("X-Anna-Retry-Count")

    private struct State: Sendable {
        var requests: [RequestRecord] = []
        var failuresLeft: Int
    }

    /// How it runs.
    public let configuration: CollectorConfiguration
    /// Where results are kept.
    public let store: CollectorStore
    private let state: Locked<State>
    private let printLine: @Sendable (String) -> Void

    /// A collector (not yet listening).
    /// - Parameter printLine: Where the line per batch goes (standard output in `anna collect`).
    public init(configuration: CollectorConfiguration, printLine: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.configuration = configuration
        self.store = try CollectorStore(path: configuration.storePath)
        self.state = Locked(State(failuresLeft: configuration.failures.failCount))
        self.printLine = printLine
    }

    /// Every request so far.
    public var requests: [RequestRecord] { state.withLock { $0.requests } }

    /// Listens until the task is cancelled or, when `stoppingOnSignals`, SIGTERM or SIGINT
    /// arrives (then it finishes the requests under way first); `onListening` gets the port.
    public func run(stoppingOnSignals: Bool = false, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let router = Router()
        // `**` matches every path below the root, not the root itself.
        for path in ["/", "**"] {
            router.post(RouterPath(path)) { request, _ -> Response in try await self.handle(request) }
        }
        let application = Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: TimeAmount(configuration.idleTimeout))),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "anna-collect",
                availableConnectionsDelegate: CappedConnections(
                    maximum: configuration.maximumConnections ?? ConnectionCap.default,
                    onCapReached: configuration.onConnectionCapReached ?? { _ in })),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: {
                var logger = Logger(label: "anna.collect")
                logger.logLevel = .critical
                return logger
            }())
        try await application.runService(gracefulShutdownSignals: stoppingOnSignals ? [.sigterm, .sigint] : [])
    }

    private func handle(_ request: Request) async throws -> Response {
        var request = request
        let number = state.withLock { state in
            state.requests.append(RequestRecord(number: state.requests.count + 1, status: 0, count: 0, new: 0, messageIds: []))
            return state.requests.count
        }
        func record(_ status: Int, _ update: (inout RequestRecord) -> Void = { _ in }) {
            state.withLock { state in
                var item = state.requests[number - 1]
                item.status = status
                item.retryCount = Self.retryCountField.flatMap { request.headers[$0] }
                item.authorization = request.headers[.authorization]
                item.contentEncoding = request.headers[.contentEncoding]
                item.contentType = request.headers[.contentType]
                update(&item)
                state.requests[number - 1] = item
            }
        }
        let failures = configuration.failures
        if failures.delay > .zero { try await Task.sleep(for: failures.delay) }
        if failures.dropConnectionEvery > 0, number % failures.dropConnectionEvery == 0 {
            record(0)
            printLine("request \(number): connection dropped (injected)")
            // Promise a body and break off after a part of it: the client sees the connection close.
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(contentLength: 64) { writer in
                    try await writer.write(ByteBuffer(string: "{\"accepted\""))
                    throw CancellationError()
                })
        }
        if let failStatus = failures.failStatus {
            let inject = state.withLock { state in
                if state.failuresLeft == 0 { return false }
                if state.failuresLeft > 0 { state.failuresLeft -= 1 }
                return true
            }
            if inject {
                record(failStatus)
                printLine("request \(number): \(failStatus) (injected)")
                var headers: HTTPFields = [.contentType: "application/json"]
                if let retryAfter = failures.retryAfter { headers[.retryAfter] = retryAfter }
                return Response(
                    status: .init(code: failStatus), headers: headers,
                    body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\"injected \(failStatus)\"}")))
            }
        }
        var body = try await request.collectBody(upTo: 64 * 1024 * 1024)
        if request.headers[.contentEncoding]?.lowercased() == "gzip" {
            do {
                body = try body.decompress(with: .gzip(), maxSize: 64 * 1024 * 1024)
            } catch {
                return refuse(number, 400, "the body is not gzip: \(error)", record: record)
            }
        }
        let bytes = Array(body.readableBytesView)
        if let maximum = failures.maximumBodyBytes, bytes.count > maximum {
            record(413)
            printLine("request \(number): 413, a body of \(Plural.count(bytes.count, "byte")) is over \(maximum)")
            return Response(status: .contentTooLarge, body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\"too large\"}")))
        }
        let batch: [OutboxMessage]
        do {
            batch = try WireFormat.decode(bytes).batch
        } catch {
            return refuse(number, 400, error.description, record: record)
        }
        let ids = batch.map(\.messageId)
        if let poison = failures.rejectMessageContaining,
            let bad = batch.first(where: { $0.result.contains(poison) })
        {
            record(failures.rejectStatus) {
                $0.count = batch.count
                $0.messageIds = ids
            }
            printLine(
                "request \(number): \(failures.rejectStatus), \(Plural.count(batch.count, "result")) refused (\(bad.messageId) contains \(poison))")
            return Response(
                status: .init(code: failures.rejectStatus), headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\"refused\",\"messageId\":\(JSONValue.string(bad.messageId).jsonText)}")))
        }
        let new = try store.store(batch)
        record(200) {
            $0.count = batch.count
            $0.new = new
            $0.messageIds = ids
        }
        printLine("batch \(number): \(Plural.count(batch.count, "result")) (\(new) new, \(Plural.count(batch.count - new, "duplicate"))) -> 200")
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: "{\"accepted\":\(batch.count),\"new\":\(new)}")))
    }

    private func refuse(
        _ number: Int, _ status: Int, _ reason: String, record: (Int, (inout RequestRecord) -> Void) -> Void
    ) -> Response {
        record(status) { $0.malformed = reason }
        printLine("request \(number): \(status), malformed body: \(reason)")
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\(JSONValue.string(reason).jsonText)}")))
    }
}
