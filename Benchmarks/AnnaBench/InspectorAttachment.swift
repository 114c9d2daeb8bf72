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
                var pending: [UInt8] = []
                // Bytes of `pending` already searched for a message's end.
                var searched = 0
                for try await chunk in response.body {
                    pending.append(contentsOf: chunk.readableBytesView)
                    observations.seen.withLock { $0.bytes += chunk.readableBytes }
                    var start = 0
                    while let end = Self.messageEnd(in: pending, from: max(start, searched)) {
                        if let seq = try Self.highestResultSeq(in: pending[start..<end]) {
                            let now = MonotonicClock.now()
                            observations.seen.withLock {
                                $0.highestSeq = max($0.highestSeq, seq)
                                $0.arrivedAt = now
                            }
                        }
                        start = end + 2
                    }
                    pending.removeFirst(start)
                    searched = max(0, pending.count - 1)
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

    private static let resultsPrefix = Array("event: results\ndata: ".utf8)
    private static let seqKey = Array("{\"seq\":".utf8)

    /// Where the message starting at `start` ends (the index of its blank line's first `\n`).
    private static func messageEnd(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "\n"), bytes[index + 1] == UInt8(ascii: "\n") { return index }
            index += 1
        }
        return nil
    }

    /// For a `results` message, the highest `seq` of its array: the last element's, found
    /// from the end without decoding the JSON (as a page's `JSON.parse` runs in the browser,
    /// not in the app). Each element starts with `{"seq":` (W1's result values have no `seq`).
    private static func highestResultSeq(in message: ArraySlice<UInt8>) throws -> Int? {
        guard message.starts(with: resultsPrefix) else { return nil }
        var index = message.endIndex - seqKey.count
        while index >= message.startIndex + resultsPrefix.count {
            if message[index..<index + seqKey.count].elementsEqual(seqKey) {
                var seq = 0
                var digit = index + seqKey.count
                while digit < message.endIndex, let value = Int(exactly: message[digit] &- UInt8(ascii: "0")), value < 10 {
                    seq = seq * 10 + value
                    digit += 1
                }
                if digit > index + seqKey.count { return seq }
                break
            }
            index -= 1
        }
        throw InspectorBenchError("a results message without a numbered result: \(String(decoding: message.prefix(200), as: UTF8.self))")
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
