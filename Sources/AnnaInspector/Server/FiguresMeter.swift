import Anna
import CoreJS
import DequeModule
import Foundation

/// The performance figures: events and results per second over the last second or so,
/// queue depth, record→delegate latency, the JavaScript heap (read at most every
/// ``heapInterval`` seconds, never while paused: it walks the heap on the script queue) and
/// the outbox's counters.
final class FiguresMeter: Sendable {
    private struct Sample: Sendable {
        var uptime: Double
        var events: Int
        var results: Int
    }

    private struct Memory: Sendable {
        var samples = Deque<Sample>()
        var heapBytes: Int?
        var heapReadAt: Double = -.infinity
        var heapError: String?
    }

    /// Seconds between two reads of the heap.
    static let heapInterval = 5.0
    private let inspector: Inspector
    private let memory = Locked(Memory())

    init(inspector: Inspector) {
        self.inspector = inspector
    }

    private static func uptime() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The figures now, as the API gives them.
    func figures() async -> JSONValue {
        var store = inspector.state.read()
        let subject = inspector.subject
        if let counted = subject?.eventCount { store.eventCount = counted }
        let now = Self.uptime()
        let rates = memory.withLock { memory -> (Double, Double) in
            memory.samples.append(Sample(uptime: now, events: store.eventCount, results: store.resultCount))
            while let first = memory.samples.first, now - first.uptime > 2, memory.samples.count > 2 { memory.samples.removeFirst() }
            guard let first = memory.samples.first, now - first.uptime > 0.05 else { return (0, 0) }
            let seconds = now - first.uptime
            return (Double(store.eventCount - first.events) / seconds, Double(store.resultCount - first.results) / seconds)
        }
        await refreshHeap(subject: subject, now: now)
        let heap = memory.withLock { ($0.heapBytes, $0.heapError) }
        let latency = InspectorState.percentiles(of: store.latencies)
        var outbox: JSONValue?
        if let counters = inspector.configuration.outboxCounters {
            do {
                outbox = .object(.init(uniqueKeysWithValues: try counters().sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) }))
            } catch {
                outbox = .fields(["error": .string("\(error)")])
            }
        }
        return .fields([
            "eventsPerSecond": .number(rates.0.rounded()), "resultsPerSecond": .number(rates.1.rounded()),
            "events": .int(store.eventCount), "results": .int(store.resultCount), "errors": .int(store.errorCount),
            "operations": .int(store.operationCount), "queueDepth": .int(subject?.queueDepth ?? 0),
            "latencyP50Ms": latency.map { .number(($0.p50 * 1000).rounded() / 1000) },
            "latencyP99Ms": latency.map { .number(($0.p99 * 1000).rounded() / 1000) },
            "latencySamples": .int(store.latencies.count),
            "heapBytes": heap.0.map(JSONValue.int), "heapError": heap.1.json, "outbox": outbox,
        ])
    }

    private func refreshHeap(subject: (any InspectedSubject)?, now: Double) async {
        guard let subject, !subject.isPaused else { return }
        let due = memory.withLock { memory in
            guard now - memory.heapReadAt >= Self.heapInterval else { return false }
            memory.heapReadAt = now
            return true
        }
        guard due else { return }
        do {
            let bytes = try await subject.heapBytes()
            memory.withLock {
                $0.heapBytes = bytes
                $0.heapError = bytes == nil ? "this JavaScriptCore does not report its heap" : nil
            }
        } catch {
            memory.withLock { $0.heapError = "\(error)" }
        }
    }
}
