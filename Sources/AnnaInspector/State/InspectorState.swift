import Anna
import CoreJS
import DequeModule
import Foundation
import Synchronization

/// What the inspector has seen: the last results, errors and operations (each with a
/// cursor), counters, latency samples and a timeline. Safe from any thread: one lock, held for
/// a few assignments per call; a manager counts its own events, which are only sampled into
/// the lock (see ``sampleQueuedEvent(node:name:time:)``).
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
    /// A manager's events kept for the page per sampling window (the rest are counted only):
    /// a screen's burst of appearances flashes whole, a flood costs the lock 1,600 times a second.
    static let sampledPerWindow = 16
    /// The sampling window, in milliseconds.
    static let sampleWindowMilliseconds = 10

    struct Store: Sendable {
        var results: ResultWindow
        var errors = Deque<InspectedError>()
        var operations = Deque<InspectedOperation>()
        /// Every result seen: the newest one's number.
        var resultCount: Int { results.count }
        var errorCount = 0
        var operationCount = 0
        /// Events a stream session noted (a manager counts its own:
        /// ``InspectedSubject/eventCount``).
        var eventCount = 0
        /// The manager's event count when the timeline last counted its events (a stream
        /// session's events go to the timeline one by one, in ``note(_:time:line:)``).
        var managerEventsInTimeline = 0
        /// Bumped on every registration and removal: the tree's shape changed.
        var treeVersion = 0
        var latencies = Deque<Double>()
        var timeline = Timeline()
        /// The namespace of each node registered with one, by node ID (as the tree names IDs).
        var namespaces: [String: String] = [:]
        /// Bumped on `reset()`: a client's cursors from before are void.
        var generation = 1
    }

    private let store: Locked<Store>
    /// The window of the last sampled event times 32, plus how many were kept in it.
    private let sampleSlot = Atomic<Int>(0)

    init(resultLimit: Int, errorLimit: Int) {
        self.resultLimit = resultLimit
        self.errorLimit = errorLimit
        store = Locked(Store(results: ResultWindow(limit: resultLimit)))
    }

    /// Notes an operation (counted; kept for the page to flash).
    func note(_ operation: ModuleOperation, time: Double, line: Int? = nil) {
        store.withLock { store in
            store.operationCount += 1
            let kept = InspectedOperation(sequence: store.operationCount, time: time, operation: operation, line: line)
            if kept.isEvent {
                store.eventCount += 1
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

    /// Keeps an event a manager queued for the page while fewer than ``sampledPerWindow``
    /// arrive in a window of ``sampleWindowMilliseconds`` (beyond that, the first ones of each
    /// window): the page flashes nodes, and a million events a second cannot be shown. (The
    /// manager counts them.)
    func sampleQueuedEvent(node: NodeID, name: String, time: Double) {
        let window = Int(time) / Self.sampleWindowMilliseconds
        let slot = sampleSlot.load(ordering: .relaxed)
        let next = slot >> 5 == window ? slot + 1 : window << 5 | 1
        guard next & 31 <= Self.sampledPerWindow,
            sampleSlot.compareExchange(expected: slot, desired: next, ordering: .relaxed).exchanged
        else { return }
        store.withLock { store in
            store.operationCount += 1
            store.operations.append(
                InspectedOperation(sequence: store.operationCount, time: time, operation: .event(id: node, name: name, properties: .null), line: nil))
            if store.operations.count > Self.operationLimit { store.operations.removeFirst() }
        }
    }

    /// Keeps what a manager delivered in one block, at `time`; the timeline counts its
    /// results, its errors and the events since the last block (the manager had counted
    /// `eventTotal` in all).
    func add(_ block: DeliveredBlock, time: Double, eventTotal: Int) {
        let entries = block.errors.flatMap { InspectedError.entries(for: $0, time: time, line: nil) }
        store.withLock { store in
            store.results.append(block.results, skipped: block.skippedResults, time: time)
            store.addErrors(entries, limit: errorLimit)
            store.timeline.add(
                time: time, line: nil, events: eventTotal - store.managerEventsInTimeline, results: block.results.count + block.skippedResults,
                errors: entries.count)
            store.managerEventsInTimeline = eventTotal
        }
    }

    /// Keeps a result.
    func add(_ result: AnalyticsResult, time: Double = InspectorClock.now(), line: Int? = nil) {
        store.withLock { store in
            store.results.append([result], time: time, line: line)
            store.timeline.add(time: time, line: line, results: 1)
        }
    }

    /// Keeps an error (one entry per failed task).
    func add(error: any Error, time: Double = InspectorClock.now(), line: Int? = nil) {
        let entries = InspectedError.entries(for: error, time: time, line: line)
        store.withLock { store in
            store.addErrors(entries, limit: errorLimit)
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
            store = Store(results: ResultWindow(limit: resultLimit))
            store.generation = generation
        }
    }

    /// A copy of everything, to read without the lock.
    func read() -> Store {
        store.withLock { $0 }
    }

    /// The results after `cursor` (newest last), and what to ask for next.
    func results(after cursor: Int, limit: Int) -> (results: [InspectedResult], cursor: Int) {
        store.withLock { store in (store.results.after(cursor, limit: limit), store.resultCount) }
    }

    /// The p50 and p99 of the latency samples, in milliseconds (`nil` without samples).
    static func percentiles(of samples: Deque<Double>) -> (p50: Double, p99: Double)? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func at(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))] }
        return (at(0.5), at(0.99))
    }
}

extension InspectorState.Store {
    /// Numbers and keeps `entries`, dropping the oldest beyond `limit`.
    fileprivate mutating func addErrors(_ entries: [InspectedError], limit: Int) {
        for var entry in entries {
            errorCount += 1
            entry.sequence = errorCount
            errors.append(entry)
        }
        if errors.count > limit { errors.removeFirst(errors.count - limit) }
    }
}

/// The clocks the inspector stamps with.
enum InspectorClock {
    /// Whole milliseconds since the epoch (as results and the page show times; a whole
    /// number also writes to JSON on the fast path).
    static func now() -> Double { (Date().timeIntervalSince1970 * 1000).rounded(.down) }
}
