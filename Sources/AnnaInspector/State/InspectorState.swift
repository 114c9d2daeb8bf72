import Anna
import CoreJS
import DequeModule
import Foundation
import Synchronization

/// What the inspector has seen: the last results, errors and operations (each with a
/// cursor), counters, latency samples and a timeline. Safe from any thread: one lock, held for
/// a few assignments per call; a manager's events are counted with an atomic and only sampled
/// into the lock (see ``noteQueuedEvent(node:name:time:)``).
final class InspectorState: Sendable {
    /// The most results kept (the page shows the last 500).
    let resultLimit: Int
    /// The most errors kept.
    let errorLimit: Int
    /// The most operations kept for the page to flash.
    static let operationLimit = 256
    /// The most latency samples kept (the percentiles are of these).
    static let latencyLimit = 512
    /// The most node namespaces kept (a tree larger than this shows the first ones' only).
    static let namespaceLimit = 100_000
    /// The timeline's buckets, oldest merged in pairs beyond this.
    static let timelineLimit = 600
    /// A manager's events kept for the page per millisecond (the rest are counted only).
    static let sampledPerMillisecond = 16

    struct Store: Sendable {
        var results = Deque<InspectedResult>()
        var errors = Deque<InspectedError>()
        var operations = Deque<InspectedOperation>()
        var resultCount = 0
        var errorCount = 0
        var operationCount = 0
        /// Events seen (filled in by ``read()`` from the atomic count).
        var eventCount = 0
        /// Events the timeline counted so far.
        var eventsInTimeline = 0
        /// Bumped on every registration and removal: the tree's shape changed.
        var treeVersion = 0
        var latencies = Deque<Double>()
        var timeline = Timeline()
        /// The namespace of each node registered with one, by node ID (as the tree names IDs).
        var namespaces: [String: String] = [:]
        /// Bumped on `reset()`: a client's cursors from before are void.
        var generation = 1
    }

    private let store = Locked(Store())
    private let events = Atomic<Int>(0)
    /// The millisecond of the last sampled event times 32, plus how many were kept in it.
    private let sampleSlot = Atomic<Int>(0)

    init(resultLimit: Int, errorLimit: Int) {
        self.resultLimit = resultLimit
        self.errorLimit = errorLimit
    }

    /// Notes an operation (counted; kept for the page to flash).
    func note(_ operation: ModuleOperation, time: Double, line: Int? = nil) {
        store.withLock { store in
            store.operationCount += 1
            let kept = InspectedOperation(sequence: store.operationCount, time: time, operation: operation, line: line)
            if kept.isEvent {
                events.add(1, ordering: .relaxed)
                store.eventsInTimeline += 1
            } else {
                store.treeVersion += 1
            }
            if case let .register(id, _, _, _, namespace?, _) = operation, store.namespaces.count < Self.namespaceLimit {
                store.namespaces[id.description] = namespace
            }
            store.operations.append(kept)
            if store.operations.count > Self.operationLimit { store.operations.removeFirst() }
            store.timeline.add(time: time, line: line, events: kept.isEvent ? 1 : 0)
        }
    }

    /// Counts an event a manager queued and keeps it for the page while fewer than
    /// ``sampledPerMillisecond`` arrive per millisecond (beyond that, the first ones of each
    /// millisecond): the page flashes nodes, and a million events a second cannot be shown.
    func noteQueuedEvent(node: NodeID, name: String, time: Double) {
        events.add(1, ordering: .relaxed)
        let millisecond = Int(time)
        let slot = sampleSlot.load(ordering: .relaxed)
        let next = slot >> 5 == millisecond ? slot + 1 : millisecond << 5 | 1
        guard next & 31 <= Self.sampledPerMillisecond,
            sampleSlot.compareExchange(expected: slot, desired: next, ordering: .relaxed).exchanged
        else { return }
        store.withLock { store in
            store.operationCount += 1
            store.operations.append(
                InspectedOperation(sequence: store.operationCount, time: time, operation: .event(id: node, name: name, properties: .null), line: nil))
            if store.operations.count > Self.operationLimit { store.operations.removeFirst() }
        }
    }

    /// Keeps what a manager delivered in one block: its last results (`skipped` earlier ones
    /// only counted) and its errors, at `time`; the timeline counts them and the events
    /// counted since the last block.
    func addDelivered(_ results: ArraySlice<AnalyticsResult>, skipped: Int, errors: [any Error], time: Double) {
        let entries = errors.flatMap { InspectedError.entries(for: $0, time: time, line: nil) }
        let eventTotal = events.load(ordering: .relaxed)
        store.withLock { store in
            store.resultCount += skipped
            for result in results {
                store.resultCount += 1
                store.results.append(InspectedResult(sequence: store.resultCount, time: time, result: result, line: nil))
            }
            if store.results.count > resultLimit { store.results.removeFirst(store.results.count - resultLimit) }
            for var entry in entries {
                store.errorCount += 1
                entry.sequence = store.errorCount
                store.errors.append(entry)
            }
            if store.errors.count > errorLimit { store.errors.removeFirst(store.errors.count - errorLimit) }
            store.timeline.add(
                time: time, line: nil, events: eventTotal - store.eventsInTimeline, results: results.count + skipped, errors: entries.count)
            store.eventsInTimeline = eventTotal
        }
    }

    /// Keeps a result.
    func add(_ result: AnalyticsResult, time: Double = InspectorClock.now(), line: Int? = nil) {
        store.withLock { store in
            store.resultCount += 1
            store.results.append(InspectedResult(sequence: store.resultCount, time: time, result: result, line: line))
            if store.results.count > resultLimit { store.results.removeFirst() }
            store.timeline.add(time: time, line: line, results: 1)
        }
    }

    /// Keeps an error (one entry per failed task).
    func add(error: any Error, time: Double = InspectorClock.now(), line: Int? = nil) {
        let entries = InspectedError.entries(for: error, time: time, line: line)
        store.withLock { store in
            for var entry in entries {
                store.errorCount += 1
                entry.sequence = store.errorCount
                store.errors.append(entry)
                if store.errors.count > errorLimit { store.errors.removeFirst() }
            }
            store.timeline.add(time: time, line: line, errors: entries.count)
        }
    }

    /// Keeps a record→delegate latency sample, in milliseconds.
    func addLatency(milliseconds: Double) {
        store.withLock { store in
            store.latencies.append(milliseconds)
            if store.latencies.count > Self.latencyLimit { store.latencies.removeFirst() }
        }
    }

    /// Forgets everything (a recorded stream jumped back); cursors start over.
    func reset() {
        store.withLock { store in
            let generation = store.generation + 1
            store = Store()
            store.generation = generation
            events.store(0, ordering: .relaxed)
        }
    }

    /// A copy of everything, to read without the lock.
    func read() -> Store {
        var copy = store.withLock { $0 }
        copy.eventCount = events.load(ordering: .relaxed)
        return copy
    }

    /// The results after `cursor` (newest last), and what to ask for next.
    func results(after cursor: Int, limit: Int) -> (results: [InspectedResult], cursor: Int) {
        store.withLock { store in
            let new = store.results.filter { $0.sequence > cursor }.suffix(limit)
            return (Array(new), store.resultCount)
        }
    }

    /// The p50 and p99 of the latency samples, in milliseconds (`nil` without samples).
    static func percentiles(of samples: Deque<Double>) -> (p50: Double, p99: Double)? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func at(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))] }
        return (at(0.5), at(0.99))
    }
}

/// The clocks the inspector stamps with.
enum InspectorClock {
    /// Milliseconds since the epoch (as results and the page show times).
    static func now() -> Double { Date().timeIntervalSince1970 * 1000 }
}
