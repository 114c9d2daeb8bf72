import CoreJS
import DequeModule
import Dispatch
import Foundation

/// Group commit: appends go to a list under a lock (the caller never waits for the disk);
/// one serial queue writes everything waiting in one transaction, again and again until
/// nothing waits.
final class OutboxWriter: Sendable {
    private struct State: Sendable {
        var entries: Deque<OutboxStore.Entry> = []
        var unwrittenBytes = 0
        var scheduled = false
        var drops: [DropReason: Int] = [:]
        /// Drops that could not be written to the file (counted in memory only).
        var unsavedDrops: [DropReason: Int] = [:]
        var inBackpressure = false
        var closed = false
        var lastCapReport: [DropReason: Double] = [:]
        var unreportedCapDrops: [DropReason: Int] = [:]
    }

    let store: OutboxStore
    private let queue = DispatchQueue(label: "anna.outbox.writer")
    private let state = Locked(State())
    private let onError: @Sendable (OutboxError) -> Void

    init(store: OutboxStore, onError: @escaping @Sendable (OutboxError) -> Void) {
        self.store = store
        self.onError = onError
    }

    /// Queues one result of `session` (its sequence number taken here, so append order is
    /// sequence order). Returns the error to report when it was not kept.
    /// With ``OutboxConfiguration/waitsWhenBehind``, waits for the writer instead of dropping.
    func append(session: String, make: (Int64) -> OutboxStore.Entry, bytes: Int) -> OutboxError? {
        let limit = store.configuration.maximumUnwrittenBytes
        if store.configuration.waitsWhenBehind {
            while state.withLock({ $0.unwrittenBytes + bytes > limit && !$0.entries.isEmpty && !$0.closed }) {
                synchronize()
            }
        }
        let (schedule, refusal): (Bool, OutboxError?) = state.withLock { state in
            if state.closed { return (false, .closed(path: store.path)) }
            if state.unwrittenBytes + bytes > limit, !state.entries.isEmpty {
                state.drops[.backpressure, default: 0] += 1
                let first = !state.inBackpressure
                state.inBackpressure = true
                return (false, first ? .backpressure(dropped: 1, limit: limit) : nil)
            }
            if state.inBackpressure, state.unwrittenBytes < limit / 2 { state.inBackpressure = false }
            state.entries.append(make(store.takeSequence(of: session)))
            state.unwrittenBytes += bytes
            if state.scheduled { return (false, nil) }
            state.scheduled = true
            return (true, nil)
        }
        if schedule { queue.async { self.drain() } }
        return refusal
    }

    /// Counts a result dropped before it was queued.
    func countDrop(_ reason: DropReason) {
        let schedule = state.withLock { state in
            state.drops[reason, default: 0] += 1
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    /// The drops counted in memory only (a write failed), and those not yet written.
    var unwrittenDrops: [DropReason: Int] {
        state.withLock { state in state.unsavedDrops.merging(state.drops, uniquingKeysWith: +) }
    }

    /// Results appended but not yet written.
    var unwrittenCount: Int { state.withLock { $0.entries.count } }

    /// Blocks until everything appended before has been written.
    func synchronize() {
        queue.sync {}
    }

    /// Suspends until everything appended before has been written.
    func written() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    /// Refuses new appends and waits for the queued ones to be written.
    func close() {
        state.withLock { $0.closed = true }
        synchronize()
    }

    private func drain() {
        let maximum = store.configuration.maximumRowsPerTransaction
        while true {
            let taken: (entries: [OutboxStore.Entry], drops: [DropReason: Int])? = state.withLock { state in
                if state.entries.isEmpty, state.drops.isEmpty {
                    state.scheduled = false
                    return nil
                }
                let entries: [OutboxStore.Entry]
                if state.entries.count <= maximum {
                    entries = Array(state.entries)
                    state.entries.removeAll(keepingCapacity: true)
                } else {
                    entries = Array(state.entries.prefix(maximum))
                    state.entries.removeFirst(maximum)  // a deque: the rest does not move
                }
                state.unwrittenBytes -= entries.reduce(0) { $0 + $1.bytes }
                let drops = state.drops
                state.drops = [:]
                return (entries, drops)
            }
            guard let taken else { return }
            let now = Date().timeIntervalSince1970
            do {
                let capDrops = try store.write(taken.entries, drops: taken.drops, now: now)
                if !capDrops.isEmpty { reportCapDrops(capDrops, now: now) }
            } catch {
                state.withLock { state in
                    state.unsavedDrops.merge(taken.drops, uniquingKeysWith: +)
                    state.unsavedDrops[.writeFailed, default: 0] += taken.entries.count
                }
                onError(
                    .storage(
                        path: store.path,
                        message:
                            "writing \(taken.entries.count) results failed (\(error)); they are lost, counted under dropped.writeFailed: free disk space or check the file's permissions"
                    ))
            }
        }
    }

    /// Reports drops by the caps: the first at once, then at most one report every 10 s
    /// per reason, with the count since the last.
    private func reportCapDrops(_ drops: [DropReason: Int], now: Double) {
        let due: [DropReason: Int] = state.withLock { state in
            var due: [DropReason: Int] = [:]
            for (reason, count) in drops {
                state.unreportedCapDrops[reason, default: 0] += count
                if now - (state.lastCapReport[reason] ?? 0) >= 10 {
                    due[reason] = state.unreportedCapDrops[reason]
                    state.unreportedCapDrops[reason] = 0
                    state.lastCapReport[reason] = now
                }
            }
            return due
        }
        for (reason, count) in due.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            onError(
                .storage(
                    path: store.path,
                    message:
                        "\(count) of the oldest results dropped by the \(reason.rawValue) cap (counted in anna outbox stats): results arrive faster than they are delivered, or the collector is unreachable"
                ))
        }
    }
}
