import Anna
import AnnaOutbox
import CoreJS
import Foundation

/// W1's `outbox` variant: an outbox with its default configuration, in a temporary folder,
/// set as the manager's ``Manager/Dependency/outbox``. W1's `destinations=2` variant: the same
/// with two destinations (`a`, `b`: each result is a row in each queue) and an
/// ``OutboxUploader`` running for each, `a` in Segment's format and `b` in Anna's, to a
/// ``LoopbackReceiver`` each.
///
/// The engine hands over results several times faster than SQLite commits them, so the
/// outbox falls behind; its in-memory queue is capped (`maximumUnwrittenBytes`) and what
/// arrives beyond the cap is dropped and counted under `backpressure`. The sink passed to the
/// manager counts those reports instead of forwarding them to the delegate, whose
/// verification fails on any other error.
final class OutboxAttachment {
    /// An uploader running for one destination, with its receiver.
    struct Delivery {
        var name: String
        var uploader: OutboxUploader
        var receiver: LoopbackReceiver
        var task: Task<Void, Never>
    }

    let outbox: Outbox
    let sink: BackpressureCountingSink
    /// The uploaders (none for the plain `outbox` variant).
    let deliveries: [Delivery]
    private let folder: URL

    /// A new outbox file in a new temporary folder; with `uploaders`, two destinations and an
    /// uploader running for each.
    /// - Throws: ``BenchError/workspaceFailed(path:reason:)``.
    init(uploaders: Bool = false) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("anna-bench-outbox-w1-\(UUID().uuidString)")
        var configuration = OutboxConfiguration()
        if uploaders { configuration.destinations = ["a", "b"] }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            outbox = try Outbox(path: folder.appendingPathComponent("outbox.sqlite").path, configuration: configuration) {
                printError("anna-bench: \($0)")
            }
        } catch {
            throw BenchError.workspaceFailed(path: folder.path, reason: "\(error)")
        }
        sink = BackpressureCountingSink(sink: outbox.sink(session: "w1"))
        var deliveries: [Delivery] = []
        if uploaders {
            for (name, format, reply) in [("a", DeliveryFormat.segment, DeliveryReply.segment), ("b", .anna, .anna)] {
                let receiver = try await LoopbackReceiver.start(reply: reply)
                var upload = UploadConfiguration(url: receiver.url, format: format)
                upload.destination = name
                if format == .segment { upload.apiKey = "anna-bench-key" }
                let uploader = try OutboxUploader(outbox: outbox, configuration: upload)
                deliveries.append(Delivery(name: name, uploader: uploader, receiver: receiver, task: Task { await uploader.run() }))
            }
        }
        self.deliveries = deliveries
    }

    /// Results delivered so far, by destination.
    var delivered: [String: Int] {
        Dictionary(uniqueKeysWithValues: deliveries.map { ($0.name, $0.uploader.tally.delivered) })
    }

    /// Stops the uploaders (a request under way is given up; its results stay) and their receivers.
    func stopUploaders() async {
        for delivery in deliveries { delivery.task.cancel() }
        for delivery in deliveries { await delivery.task.value }
        for delivery in deliveries { await delivery.receiver.stop() }
    }

    /// What became of the results, checked.
    struct Outcome {
        /// Results written (per destination: waiting, in flight, delivered or set aside).
        var written: Int
        /// Results dropped by back-pressure (never written).
        var dropped: Int
        /// Rows dropped by the row and byte caps (the oldest, from any destination's queue).
        var capDropRows: Int
    }

    /// Throws unless every one of `total` results was written or counted as dropped by
    /// back-pressure (call after ``Outbox/synchronize()`` and ``stopUploaders()``). With
    /// destinations, each destination's rows (waiting, in flight, set aside or delivered)
    /// must account for every written result, less the rows the row and byte caps dropped (a
    /// row dropped while its request was under way may be delivered as well).
    /// - Throws: ``BenchError/measurementFailed(_:)``.
    func verify(total: Int) throws -> Outcome {
        let stats = try outbox.stats()
        let dropped = stats.dropped[DropReason.backpressure.rawValue] ?? 0
        let capReasons: Set<String> = deliveries.isEmpty ? [] : [DropReason.rowCap.rawValue, DropReason.byteCap.rawValue]
        let capDropRows = stats.dropped.filter { capReasons.contains($0.key) }.values.reduce(0, +)
        let others = stats.dropped.filter { $0.key != DropReason.backpressure.rawValue && !capReasons.contains($0.key) }
        guard deliveries.isEmpty else {
            var held: [String: Int] = [:]
            for delivery in deliveries {
                let queue = stats.destinations[delivery.name] ?? DestinationStats()
                let tally = delivery.uploader.tally
                held[delivery.name] = queue.pending + queue.inFlight + queue.deadLetter + tally.delivered
            }
            let rows = held.values.reduce(0, +) + capDropRows
            let expected = deliveries.count * (total - dropped)
            // A row the caps drop while its request is under way is delivered too, and counted twice.
            let counted = capDropRows > 0 ? (expected...(expected + capDropRows)) : (expected...expected)
            guard others.isEmpty, counted.contains(rows), capDropRows > 0 || held.values.allSatisfy({ $0 == total - dropped }) else {
                throw BenchError.measurementFailed(
                    "W1 destinations: \(dropped) of \(total) results dropped by back-pressure, rows held by destination "
                        + "\(held.sorted { $0.key < $1.key }) (expected \(total - dropped) each), \(capDropRows) rows dropped by "
                        + "the caps; other drops: \(others)")
            }
            return Outcome(written: total - dropped, dropped: dropped, capDropRows: capDropRows)
        }
        guard stats.pending + dropped == total, others.isEmpty else {
            throw BenchError.measurementFailed(
                "W1 outbox: \(stats.pending) written and \(dropped) dropped by back-pressure of \(total) results; other drops: \(others)")
        }
        return Outcome(written: stats.pending, dropped: dropped, capDropRows: 0)
    }

    deinit {
        for delivery in deliveries {
            delivery.task.cancel()
        }
        outbox.close()
        do { try FileManager.default.removeItem(at: folder) } catch { printError("warning: \(folder.path): \(error)") }
    }
}

/// Appends to the outbox; counts the back-pressure reports (one per episode in which the
/// writer fell behind) and passes every other error on to the manager.
final class BackpressureCountingSink: ResultSink {
    private let sink: OutboxSink
    private let episodes = Locked(0)

    init(sink: OutboxSink) {
        self.sink = sink
    }

    /// Back-pressure episodes so far.
    var backpressureEpisodes: Int { episodes.withLock { $0 } }

    func append(_ result: AnalyticsResult, time: Double) throws {
        do {
            try sink.append(result, time: time)
        } catch OutboxError.backpressure {
            episodes.withLock { $0 += 1 }
        }
    }
}
