import Anna
import AnnaServing
import CoreJS
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// An inspector's page, JSON API and event stream on Hummingbird, running in the background
/// until ``stop()`` (see docs/inspector.md for the API).
public final class InspectorServer: Sendable {
    /// Where the page is: `http://HOST:PORT/` (with `?token=T` when a token is required).
    public let url: URL
    /// The port bound.
    public let port: Int
    let inspector: Inspector
    let figures: FiguresMeter
    private let stopping = Locked(false)
    private let task = Locked<Task<Void, any Error>?>(nil)

    private init(inspector: Inspector, url: URL, port: Int) {
        self.inspector = inspector
        self.url = url
        self.port = port
        figures = FiguresMeter(inspector: inspector)
    }

    /// Whether ``stop()`` was called (the event streams end).
    var isStopping: Bool { stopping.withLock { $0 } }

    /// Starts serving `inspector`; returns once the server listens.
    static func start(for inspector: Inspector, host: String? = nil, port: Int? = nil, token: String?? = nil) async throws -> InspectorServer {
        var configuration = inspector.configuration
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let token { configuration.token = token }
        if configuration.token?.isEmpty == true { throw InspectorError.emptyToken }
        guard configuration.isLoopback || configuration.token != nil else {
            throw InspectorError.tokenRequired(host: configuration.host)
        }
        if let maximum = configuration.maximumConnections, maximum < 1 {
            throw InspectorError.badRequest("maximumConnections must be at least 1 (it is \(maximum))")
        }
        guard configuration.idleTimeout > .zero else {
            throw InspectorError.badRequest("idleTimeout must be above 0 (it is \(configuration.idleTimeout))")
        }
        let listening = Locked<CheckedContinuation<Int, any Error>?>(nil)
        let box = ServerBox()
        let final = configuration
        let task = Task {
            let router = Router()
            router.add(middleware: InspectorMiddleware(token: final.token, loopbackOnly: final.isLoopback))
            InspectorRoutes(server: box).register(on: router)
            let application = Application(
                router: router,
                server: .http1(configuration: .init(idleTimeout: TimeAmount(final.idleTimeout))),
                configuration: .init(
                    address: .hostname(final.host, port: final.port), serverName: "anna-inspector",
                    availableConnectionsDelegate: CappedConnections(
                        maximum: final.maximumConnections ?? ConnectionCap.default,
                        onCapReached: final.onConnectionCapReached ?? { _ in })
                ),
                onServerRunning: { channel in
                    let port = channel.localAddress?.port ?? 0
                    listening.withLock { continuation in
                        continuation?.resume(returning: port)
                        continuation = nil
                    }
                },
                logger: {
                    var logger = Logger(label: "anna.inspector")
                    logger.logLevel = .critical
                    return logger
                }())
            do {
                try await application.runService(gracefulShutdownSignals: [])
            } catch {
                listening.withLock { continuation in
                    continuation?.resume(throwing: error)
                    continuation = nil
                }
                throw error
            }
        }
        let bound = try await withCheckedThrowingContinuation { continuation in
            listening.withLock { $0 = continuation }
        }
        var components = URLComponents()
        components.scheme = "http"
        components.host = final.host.contains(":") ? "[\(final.host)]" : final.host
        components.port = bound
        components.path = "/"
        if let token = final.token { components.queryItems = [URLQueryItem(name: "token", value: token)] }
        guard let url = components.url else { throw InspectorError.badRequest("cannot make a URL of host \(final.host)") }
        let server = InspectorServer(inspector: inspector, url: url, port: bound)
        box.server.withLock { $0 = server }
        server.task.withLock { $0 = task }
        return server
    }

    /// Waits until the server stops (``stop()``, or an error).
    public func wait() async throws {
        guard let task = task.withLock({ $0 }) else { return }
        try await task.value
    }

    /// Stops serving: event streams end, then the listener closes.
    /// - Throws: what the server failed with before it was stopped.
    public func stop() async throws {
        stopping.withLock { $0 = true }
        guard let task = task.withLock({ $0 }) else { return }
        task.cancel()
        do {
            try await task.value
        } catch is CancellationError {
            // Stopped as asked.
        }
    }
}

/// The server, once it exists, for the routes made before it.
final class ServerBox: Sendable {
    let server = Locked<InspectorServer?>(nil)
    func get() throws -> InspectorServer {
        guard let server = server.withLock({ $0 }) else { throw HTTPError(.serviceUnavailable, message: "starting") }
        return server
    }
}
