import CoreJS
import Dispatch
import Foundation

/// Group commit: appends go to groups in memory under a lock (the caller never waits for
/// the disk), each result encoded into its destination's open group (``PendingGroup``); one
/// serial queue writes every group waiting in one transaction, again and again until nothing
/// waits. A failed write (disk full) keeps its results in memory and is retried.
final class OutboxWriter: Sendable {
    fileprivate struct State: Sendable {
        /// The groups results are appended to (one per destination, session and envelope in
        /// use), the full ones waiting (append order), and those of the write under way.
        var open: [PendingGroup] = []
        var full: [PendingGroup] = []
        var writing: [PendingGroup] = []
        /// Results in those groups (a result sent to two destinations counts twice).
        var unwritten = 0
        /// The session appended to last and its next position (saves hashing its name per
        /// append; ``nextSeq`` has it while another session is appended to).
        var current: (session: String, next: Int64)?
        /// Sessions whose position 0 this opening wrote (the check for a reused name is done).
        var openedSessions: Set<String> = []
        var unwrittenBytes = 0
        var scheduled = false
        var drops: [DropReason: Int] = [:]
        /// Drops counted but not yet in the file (a write failed since).
        var unsavedDrops: [DropReason: Int] = [:]
        var inBackpressure = false
        var closed = false
        var lastCapReport: [DropReason: Double] = [:]
        var unreportedCapDrops: [DropReason: Int] = [:]
        /// The next position of each session appended to by this outbox (message IDs are
        /// a pure function of session and position).
        var nextSeq: [String: Int64] = [:]
        /// One writer per file, taken at the first append.
        var lock: WriterLock?
        /// Appends refused since the writer lock was refused: the first is told why, the
        /// others are refused quietly (counted); the lock is tried again at each append.
        var lockRefusals = 0
        /// Why the last write failed, while writes fail.
        var failure: String?
        /// Whether the refusal of the current failure was reported to a caller.
        var failureRefused = false
        /// Results appended to this outbox that never reached the file.
        var lost = 0
        /// Seconds until the next retry of a failed write.
        var retryDelay = 0.1
        /// Changes to the identity not yet written (a nil value deletes the key).
        var identity: [String: String?] = [:]
        /// Entries queued and written since the writer began, and how many were queued when
        /// the identity last changed: whether a change came before or after a batch's last entry.
        var queued = 0
        var written = 0
        var identityAt = 0
        /// When the last write began (`DispatchTime` nanoseconds), for ``OutboxConfiguration/commitInterval``.
        var lastWriteStart: UInt64 = 0
    }

    let store: OutboxStore
    private let queue = DispatchQueue(label: "anna.outbox.writer")
    private let state = Locked(State())
    private let onError: @Sendable (OutboxError) -> Void

    init(store: OutboxStore, onError: @escaping @Sendable (OutboxError) -> Void) {
        self.store = store
        self.onError = onError
    }

    /// Queues one result of `session` (its position taken here, under the lock that queues it,
    /// so append order is sequence order). Returns the error to report when it was not kept.
    /// With ``OutboxConfiguration/waitsWhenBehind``, waits for the writer instead of dropping,
    /// and refuses at once while writes fail (the run stops rather than losing results quietly).
    /// `fill` appends the result to its group of each destination in `destinations`, stamped
    /// with `envelope`.
    func append(
        session: String, destinations: [String], envelope: StampedEnvelope?, appendedAt: Double, bytes: Int,
        fill: (Int64, inout PendingGroup) -> Void
    ) -> OutboxError? {
        let limit = store.configuration.maximumUnwrittenBytes
        let waits = store.configuration.waitsWhenBehind
        if waits {
            while state.withLock({
                $0.unwrittenBytes + bytes > limit && $0.unwritten > 0 && !$0.closed && $0.failure == nil
            }) {
                synchronize()
            }
        }
        var lockRecovered = 0
        let (schedule, refusal): (Bool, OutboxError?) = state.withLock { state in
            if state.closed { return (false, .closed(path: store.path)) }
            if state.lock == nil {
                do throws(OutboxError) {
                    state.lock = try WriterLock(path: store.path)
                    lockRecovered = state.lockRefusals
                    state.lockRefusals = 0
                } catch {
                    state.lost += 1
                    state.unsavedDrops[.writeFailed, default: 0] += 1
                    state.lockRefusals += 1
                    return (false, state.lockRefusals == 1 ? error : nil)
                }
            }
            if let failure = state.failure, waits || state.unwrittenBytes + bytes > limit {
                state.lost += 1
                state.unsavedDrops[.writeFailed, default: 0] += 1
                // A batch tool hears of every refusal; an app of the first of each episode.
                let report = waits || !state.failureRefused
                state.failureRefused = true
                return (
                    false,
                    report ? .writeFailed(path: store.path, count: 1, message: failure + "; appends are refused until a write succeeds") : nil
                )
            }
            if state.unwrittenBytes + bytes > limit, state.unwritten > 0 {
                state.drops[.backpressure, default: 0] += 1
                let first = !state.inBackpressure
                state.inBackpressure = true
                return (false, first ? .backpressure(dropped: 1, limit: limit) : nil)
            }
            if state.inBackpressure, state.unwrittenBytes < limit / 2 { state.inBackpressure = false }
            let seq: Int64
            if state.current?.session == session, let next = state.current?.next {
                seq = next
                state.current?.next = next + 1  // in place: the session string is not stored again
            } else {
                if let current = state.current { state.nextSeq[current.session] = current.next }
                seq = state.nextSeq[session] ?? 0
                state.current = (session, seq + 1)
            }
            for destination in destinations {
                fill(seq, &state.open[state.openGroup(destination: destination, session: session, envelope: envelope, appendedAt: appendedAt)])
            }
            state.queued += destinations.count
            state.unwritten += destinations.count
            state.unwrittenBytes += bytes * destinations.count
            if state.scheduled { return (false, nil) }
            state.scheduled = true
            return (true, nil)
        }
        if lockRecovered > 0 {
            onError(
                .storage(
                    path: store.path,
                    message:
                        "appending works again (the other Outbox let go of the file; \(Plural.count(lockRecovered, "result")) refused before, counted under writeFailed)"
                ))
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

    /// Queues changes to the identity, written with the next transaction.
    func save(identity changes: [String: String?]) {
        let schedule = state.withLock { state in
            state.identity.merge(changes) { _, new in new }
            state.identityAt = state.queued
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    /// The drops counted in memory only (not yet written to the file).
    var unwrittenDrops: [DropReason: Int] {
        state.withLock { state in state.unsavedDrops.merging(state.drops, uniquingKeysWith: +) }
    }

    /// Results appended but not yet written (a row per destination).
    var unwrittenCount: Int { state.withLock { $0.unwritten } }

    /// Results appended for `destination` but not yet written.
    func unwrittenCount(destination: String) -> Int {
        state.withLock { state in
            (state.writing + state.full + state.open).reduce(0) { $0 + ($1.destination == destination ? $1.count : 0) }
        }
    }

    /// Results appended to this outbox that never reached the file (refused while writes
    /// failed, or still unwritten when it was closed).
    var lostCount: Int { state.withLock { $0.lost } }

    /// Blocks until everything appended before has been written (or its write failed).
    func synchronize() {
        queue.sync { drain(immediately: true) }
    }

    /// Suspends until everything appended before has been written (or its write failed).
    func written() async {
        await withCheckedContinuation { continuation in
            queue.async {
                self.drain(immediately: true)
                continuation.resume()
            }
        }
    }

    /// Waits until nothing appended waits to be written, or until `deadline`, or until a
    /// write fails; returns how many are still unwritten. Never waits on the caller's thread
    /// for more than 10 ms at a time without looking at the clock.
    func drain(before deadline: ContinuousClock.Instant) -> Int {
        while true {
            let (left, failing) = state.withLock { ($0.unwritten, $0.failure != nil) }
            // While writes fail (disk full), waiting is not likely to help: the count is said now.
            if left == 0 || failing || ContinuousClock.now >= deadline { return left }
            let done = DispatchSemaphore(value: 0)
            queue.async {
                self.drain(immediately: true)
                done.signal()
            }
            _ = done.wait(timeout: .now() + 0.01)
        }
    }

    /// Refuses new appends, writes the queued ones (one more try when writes fail), counts
    /// what could not be written as lost, and releases the writer lock.
    func close() {
        state.withLock { $0.closed = true }
        synchronize()
        if state.withLock({ $0.failure != nil && $0.unwritten > 0 }) {
            queue.sync { drain() }
        }
        let (lost, message, lock) = state.withLock { state in
            let lost = state.unwritten
            (state.open, state.full, state.writing) = ([], [], [])
            state.unwritten = 0
            state.unwrittenBytes = 0
            state.lost += lost
            if lost > 0 { state.unsavedDrops[.writeFailed, default: 0] += lost }
            defer { state.lock = nil }
            return (lost, state.failure, state.lock)
        }
        lock?.release()
        if lost > 0 {
            let unsaved = state.withLock { $0.unsavedDrops }
            do {
                try store.count(unsaved)
                state.withLock { $0.unsavedDrops = [:] }
            } catch {
                // Still unwritable: the count stays in memory and is part of the report below.
            }
            onError(.writeFailed(path: store.path, count: lost, message: message ?? "the outbox was closed"))
        }
    }

    /// Writes what waits, transaction after transaction, until nothing does. Unless `immediately`, a
    /// write that would begin sooner than ``OutboxConfiguration/commitInterval`` after the
    /// last one is put off until then (while results wait, fewer than a transaction's rows), so
    /// that a steady stream of appends makes few large transactions rather than many small ones.
    private func drain(immediately: Bool = false) {
        let maximum = store.configuration.maximumRowsPerTransaction
        let interval = UInt64(min(max(store.configuration.commitInterval.inSeconds, 0), 60) * 1e9)
        while true {
            let started = DispatchTime.now().uptimeNanoseconds
            let wait: UInt64 = state.withLock { state in
                guard !immediately, interval > 0, !state.closed, state.failure == nil, state.unwritten > 0,
                    state.unwritten < maximum, started &- state.lastWriteStart < interval
                else { return 0 }
                return interval - (started &- state.lastWriteStart)
            }
            if wait > 0 {
                queue.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { self.drain() }
                return
            }
            let taken:
                (
                    groups: [PendingGroup], results: Int, bytes: Int, drops: [DropReason: Int], identity: [String: String?],
                    identityIsNewer: Bool, opened: Set<String>
                )? =
                    state.withLock { state in
                        if state.unwritten == 0, state.drops.isEmpty, state.unsavedDrops.isEmpty, state.identity.isEmpty {
                            state.scheduled = false
                            return nil
                        }
                        // Whole groups, up to `maximum` results (at least one group), full ones
                        // first (each destination's are older than its open one); kept in
                        // `writing` until written, and put back if the write fails.
                        state.full.append(contentsOf: state.open)
                        state.open = []
                        var (count, results, bytes) = (0, 0, 0)
                        while count < state.full.count, count == 0 || results + state.full[count].count <= maximum {
                            results += state.full[count].count
                            bytes += state.full[count].bytes
                            count += 1
                        }
                        state.writing = Array(state.full.prefix(count))
                        state.full.removeFirst(count)
                        let groups = state.writing
                        let drops = state.drops.merging(state.unsavedDrops, uniquingKeysWith: +)
                        state.drops = [:]
                        state.unsavedDrops = [:]
                        defer { state.identity = [:] }
                        return (
                            groups, results, bytes, drops, state.identity, state.identityAt >= state.written + results,
                            state.openedSessions
                        )
                    }
            guard let taken else { return }
            let now = Date().timeIntervalSince1970
            do {
                let written = try store.write(
                    taken.groups, drops: taken.drops, identity: taken.identity, identityIsNewer: taken.identityIsNewer,
                    openedSessions: taken.opened, now: now)
                let recovered: String? = state.withLock { state in
                    state.writing = []
                    state.lastWriteStart = started
                    state.openedSessions.formUnion(written.openedSessions)
                    state.unwritten -= taken.results
                    state.written += taken.results
                    state.unwrittenBytes -= taken.bytes
                    defer {
                        state.failure = nil
                        state.failureRefused = false
                        state.retryDelay = 0.1
                    }
                    return state.failure
                }
                if let recovered {
                    onError(.storage(path: store.path, message: "writing works again (it had failed: \(recovered))"))
                }
                for (session, recorded) in written.reusedSessions {
                    onError(.sessionReused(path: store.path, session: session, recorded: Int(clamping: recorded)))
                }
                if !written.capDrops.isEmpty { reportCapDrops(written.capDrops, now: now) }
                store.reportGroupDamage(to: onError)
            } catch {
                let (first, delay, waiting) = state.withLock { state in
                    state.full.insert(contentsOf: state.writing, at: 0)
                    state.writing = []
                    state.unsavedDrops.merge(taken.drops, uniquingKeysWith: +)
                    state.identity.merge(taken.identity) { newer, _ in newer }
                    let first = state.failure == nil
                    state.failure = "\(error)"
                    let delay = state.retryDelay
                    state.retryDelay = min(delay * 2, 2)
                    return (first, delay, state.unwritten)
                }
                if first {
                    onError(
                        .storage(
                            path: store.path,
                            message:
                                "writing failed (\(error)); \(Plural.count(waiting, "result")) wait in memory and the write is retried: free disk space or check the file's permissions"
                        ))
                }
                if state.withLock({ $0.closed }) {
                    state.withLock { $0.scheduled = false }
                    return
                }
                queue.asyncAfter(deadline: .now() + delay) { self.drain() }
                return
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
                        "\(count == 1 ? "the oldest result" : "the \(count) oldest results") dropped by the \(reason.rawValue) cap (counted in anna outbox stats): results arrive faster than they are delivered, or the collector is unreachable"
                ))
        }
    }
}

extension OutboxWriter.State {
    /// The index in ``open`` of the group a result of `session` for `destination` stamped with
    /// `envelope` goes in; a group that cannot take it moves to ``full`` and a new one opens.
    mutating func openGroup(destination: String, session: String, envelope: StampedEnvelope?, appendedAt: Double) -> Int {
        for index in open.indices where open[index].destination == destination {
            if open[index].takes(destination: destination, session: session, envelope: envelope) { return index }
            full.append(open.remove(at: index))
            break
        }
        open.append(PendingGroup(destination: destination, session: session, envelope: envelope, appendedAt: appendedAt))
        return open.count - 1
    }
}
