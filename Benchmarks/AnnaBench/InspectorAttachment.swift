import Anna
import AnnaInspector
import AsyncHTTPClient
import CoreJS
import Foundation
import NIOCore

/// An inspector attached to the measured manager, served on loopback, with a client reading
/// its event stream the whole time (as a page would): what I1 measures the cost of.
///
/// The client notes, for each `results` message, the highest result number it held and
/// when it arrived, so that ``updateLatency(after:target:)`` can time an event's result
/// from the record call to the client.
final class InspectorAttachment: Sendable {
    /// The inspector to set as ``Manager/Dependency/inspector``.
    let inspector: Inspector
    private struct Seen: Sendable {
        var bytes = 0
        var highestSeq = 0
        var arrivedAt: UInt64 = 0
        var error: String?
    }

    /// What the client saw, shared with its task.
    private final class Observations: Sendable {
        let seen = Locked(Seen())
    }

    private let observations = Observations()
    private let server: InspectorServer
    private let reader: Task<Void, Never>

    /// Starts the server and connects the client (returns once the stream's first bytes came).
    static func start() async throws -> InspectorAttachment {
        let inspector = Inspector()
        let server = try await inspector.start()
        return try await InspectorAttachment(inspector: inspector, server: server)
    }

    private init(inspector: Inspector, server: InspectorServer) async throws {
        self.inspector = inspector
        self.server = server
        let observations = observations
        let url = "http://127.0.0.1:\(server.port)/api/events"
        reader = Task {
            do {
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .hours(1))
                var pending = ""
                for try await chunk in response.body {
                    pending += String(buffer: chunk)
                    observations.seen.withLock { $0.bytes += chunk.readableBytes }
                    while let end = pending.range(of: "\n\n") {
                        let block = pending[..<end.lowerBound]
                        if block.hasPrefix("event: results\ndata: ") {
                            let seq = try Self.highestSeq(in: block.dropFirst(21))
                            let now = MonotonicClock.now()
                            observations.seen.withLock {
                                $0.highestSeq = max($0.highestSeq, seq)
                                $0.arrivedAt = now
                            }
                        }
                        pending.removeSubrange(..<end.upperBound)
                    }
                }
            } catch {
                observations.seen.withLock { $0.error = "\(error)" }
            }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while observations.seen.withLock({ $0.bytes }) == 0 {
            guard ContinuousClock.now < deadline else { throw InspectorBenchError("the inspector's event stream sent nothing in 5 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The highest `seq` of a results message's array (the last element's).
    private static func highestSeq(in data: Substring) throws -> Int {
        guard let seq = try JSONValue(parsing: String(data)).arrayValue?.last?["seq"]?.safeIntegerValue else {
            throw InspectorBenchError("a results message without a numbered result: \(data.prefix(200))")
        }
        return seq
    }

    /// Bytes the client read so far.
    var bytesRead: Int { observations.seen.withLock { $0.bytes } }

    /// Milliseconds from `start` (``MonotonicClock``) until the client held result number
    /// `target`, waiting up to 5 s.
    /// - Throws: ``BenchError`` when it never does, or the stream failed.
    func updateLatency(after start: UInt64, target: Int) async throws -> Double {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let (highest, at, error) = observations.seen.withLock { ($0.highestSeq, $0.arrivedAt, $0.error) }
            if let error { throw InspectorBenchError("the inspector's event stream failed: \(error)") }
            if highest >= target { return MonotonicClock.seconds(from: start, to: at) * 1000 }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw InspectorBenchError("result \(target) did not reach the inspector's event stream within 5 s")
    }

    func stop() async throws {
        reader.cancel()
        try await server.stop()
    }
}

/// What went wrong with the inspector under measurement.
struct InspectorBenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
