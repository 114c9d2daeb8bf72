import CoreJS
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// A Hummingbird server on 127.0.0.1 that passes for a vendor: it reads each request's body,
/// counts the request's bytes and answers `200` with the vendor's success body
/// (``DeliveryReply``). Nothing is parsed beyond HTTP, and only the first body is kept (its
/// shape is checked after the run), so what a measurement times is the uploader's work, not a
/// collector's.
///
/// ```swift
/// let receiver = try await LoopbackReceiver.start(reply: .segment)
/// let uploader = try OutboxUploader(outbox: outbox, configuration: UploadConfiguration(url: receiver.url, format: .segment))
/// _ = await uploader.flush()
/// receiver.counts   // requests, head and body bytes
/// await receiver.stop()
/// ```
final class LoopbackReceiver: Sendable {
    /// What the receiver has read so far.
    struct Counts: Sendable {
        var requests = 0
        /// Bytes of request lines and headers, as HTTP/1.1 writes them.
        var headBytes = 0
        /// Bytes of request bodies.
        var bodyBytes = 0
        /// The first request's body, for a look at its shape.
        var firstBody: [UInt8]?

        /// Every byte of the requests (chunked framing aside: the uploader sends a length).
        var wireBytes: Int { headBytes + bodyBytes }
    }

    /// The answer to every request.
    let reply: DeliveryReply
    /// The port it listens on.
    let port: Int
    private let counter: Counter
    private let server: Task<Void, any Error>

    /// The counts, shared by the server's handler and the receiver.
    private final class Counter: Sendable {
        let counts = Locked(Counts())
    }

    /// `http://127.0.0.1:<port>/<path>`.
    var url: String { "http://127.0.0.1:\(port)/" + reply.path }

    /// What was read so far.
    var counts: Counts { counter.counts.withLock { $0 } }

    private init(reply: DeliveryReply, port: Int, counter: Counter, server: Task<Void, any Error>) {
        self.reply = reply
        self.port = port
        self.counter = counter
        self.server = server
    }

    /// Listens on a free loopback port; returns once it accepts connections.
    /// - Throws: ``BenchError/workspaceFailed(path:reason:)`` when the server cannot listen.
    static func start(reply: DeliveryReply) async throws -> LoopbackReceiver {
        let counter = Counter()
        let router = Router()
        // `**` matches every path below the root; a request to another path than the vendor's
        // gets a 404, which fails the measurement.
        router.post("**") { request, _ -> Response in
            guard request.uri.path == "/" + reply.path else { return Response(status: .notFound) }
            var bytes = 0
            let keep = counter.counts.withLock { $0.firstBody == nil }
            var body: [UInt8]? = keep ? [] : nil
            for try await buffer in request.body {
                bytes += buffer.readableBytes
                body?.append(contentsOf: buffer.readableBytesView)
            }
            let head = Self.headBytes(request)
            counter.counts.withLock { counts in
                counts.requests += 1
                counts.headBytes += head
                counts.bodyBytes += bytes
                if counts.firstBody == nil, let body { counts.firstBody = body }
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: reply.body(bytes))))
        }
        let (listening, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "anna-bench.receiver")
        logger.logLevel = .critical
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "anna-bench"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: logger)
        let server = Task {
            defer { continuation.finish() }
            try await application.runService(gracefulShutdownSignals: [])
        }
        var port = 0
        for await value in listening { port = value }
        guard port > 0 else {
            server.cancel()
            let reason: String
            do {
                try await server.value
                reason = "the server stopped before listening"
            } catch {
                reason = "\(error)"
            }
            throw BenchError.workspaceFailed(path: "127.0.0.1", reason: "loopback receiver: \(reason)")
        }
        return LoopbackReceiver(reply: reply, port: port, counter: counter, server: server)
    }

    /// Stops the server (a client's next request is refused).
    func stop() async {
        server.cancel()
        do { try await server.value } catch is CancellationError {} catch { printError("warning: loopback receiver: \(error)") }
    }

    deinit {
        server.cancel()
    }

    /// The bytes of `request`'s request line and header lines as HTTP/1.1 sends them (HTTP
    /// types keep `Host` as the authority, not as a field).
    private static func headBytes(_ request: Request) -> Int {
        var bytes = "\(request.method.rawValue) \(request.uri.description) HTTP/1.1\r\n".utf8.count + 2
        if let authority = request.head.authority { bytes += "Host: \(authority)\r\n".utf8.count }
        for field in request.headers { bytes += field.name.rawName.utf8.count + 2 + field.value.utf8.count + 2 }
        return bytes
    }
}

/// The success answer of each destination, as the vendor's API gives it.
struct DeliveryReply: Sendable {
    /// The format's name (`anna`, `segment`, …).
    var name: String
    /// The path the uploader posts to (as the vendor's endpoint is named).
    var path: String
    /// The body, given the request body's size (Amplitude reports it back).
    var body: @Sendable (_ requestBytes: Int) -> String

    /// `anna collect`'s answer (it also says how many were new; the uploader reads neither).
    static let anna = DeliveryReply(name: "anna", path: "batch") { _ in "{\"accepted\":100,\"new\":100}" }
    /// Segment's `POST /v1/batch`.
    static let segment = DeliveryReply(name: "segment", path: "v1/batch") { _ in "{\"success\":true}" }
    /// PostHog's `POST /batch/`.
    static let posthog = DeliveryReply(name: "posthog", path: "batch/") { _ in "{\"status\":1}" }
    /// Amplitude's HTTP V2 API, `POST /2/httpapi`: JSON with `"code":200`.
    static let amplitude = DeliveryReply(name: "amplitude", path: "2/httpapi") { bytes in
        "{\"code\":200,\"events_ingested\":100,\"payload_size_bytes\":\(bytes),\"server_upload_time\":1750000000000}"
    }
    /// A webhook: any 2xx; an empty body.
    static let webhook = DeliveryReply(name: "webhook", path: "hook") { _ in "" }
}
