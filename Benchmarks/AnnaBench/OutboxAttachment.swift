import Anna
import AnnaOutbox
import CoreJS
import Foundation

/// W1's `outbox` variant: an outbox with its default configuration, in a temporary folder,
/// set as the manager's ``Manager/Dependency/outbox``.
///
/// The engine hands over results several times faster than SQLite commits them, so the
/// outbox falls behind; its in-memory queue is capped (`maximumUnwrittenBytes`) and what
/// arrives beyond the cap is dropped and counted under `backpressure`. The sink passed to the
/// manager counts those reports instead of forwarding them to the delegate, whose
/// verification fails on any other error.
final class OutboxAttachment {
    let outbox: Outbox
    let sink: BackpressureCountingSink
    private let folder: URL

    /// A new outbox file in a new temporary folder.
    /// - Throws: ``BenchError/workspaceFailed(path:reason:)``.
    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("anna-bench-outbox-w1-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            outbox = try Outbox(path: folder.appendingPathComponent("outbox.sqlite").path) { printError("anna-bench: \($0)") }
        } catch {
            throw BenchError.workspaceFailed(path: folder.path, reason: "\(error)")
        }
        sink = BackpressureCountingSink(sink: outbox.sink(session: "w1"))
    }

    /// Throws unless every one of `total` results was either written or counted as dropped
    /// by back-pressure (call after ``Outbox/synchronize()``).
    /// - Throws: ``BenchError/measurementFailed(_:)``.
    func verify(total: Int) throws -> (written: Int, dropped: Int) {
        let stats = try outbox.stats()
        let dropped = stats.dropped[DropReason.backpressure.rawValue] ?? 0
        let others = stats.dropped.filter { $0.key != DropReason.backpressure.rawValue }
        guard stats.pending + dropped == total, others.isEmpty else {
            throw BenchError.measurementFailed(
                "W1 outbox: \(stats.pending) written and \(dropped) dropped by back-pressure of \(total) results; other drops: \(others)")
        }
        return (stats.pending, dropped)
    }

    deinit {
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
