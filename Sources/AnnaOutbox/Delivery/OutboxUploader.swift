import CoreJS
import Foundation

/// Sends an ``Outbox``'s results to a collector, oldest first, one batch at a time (so each
/// session's results arrive in order), and deletes each batch once the collector answers 2xx.
///
/// Failures follow ``RetryPolicy``: a refused or too-large batch is bisected until the
/// results the collector refuses are isolated and set aside as dead letters; the rest are
/// delivered. A failure worth retrying backs off the whole pipeline, 0.5 s doubling to
/// 300 s with up to 10% jitter, and `Retry-After` is honoured on any status.
public final class OutboxUploader: Sendable {
    /// What happened so far, for reports and tests.
    public struct Tally: Sendable, Equatable {
        /// Results the collector accepted.
        public var delivered = 0
        /// Results set aside (refused by the collector, or unreadable).
        public var deadLettered = 0
        /// Requests sent.
        public var requests = 0
        /// Requests that failed in a way worth retrying (including network failures).
        public var retries = 0
        /// The back-off delays waited, in order (the last 1,000).
        public var delays: [Duration] = []
    }

    /// Why ``flush(timeout:)`` ended.
    public enum FlushOutcome: Sendable, Equatable {
        /// Nothing is left to send.
        case empty
        /// The time ran out with `remaining` results still waiting.
        case timedOut(remaining: Int)
        /// The collector refuses every result alike (``OutboxError/formatRefused(status:url:body:)``):
        /// no retry within this flush can help, so it stopped with `remaining` results kept.
        case stopped(remaining: Int, because: OutboxError)
    }

    /// A 400 or 422 answer: what "refused alike" compares.
    struct Refusal: Sendable, Equatable {
        var status: Int
        var body: String
    }

    /// One batch's bisection: whether every answer so far was the same refusal, and the
    /// single results refused so, not yet set aside (they may be the endpoint's fault).
    private struct Bisection {
        var refusal: Refusal?
        var broken = false
        var held: [(item: OutboxStore.Stored, response: UploadResponse)] = []
        /// The batch's last result, sent alone once before a refused format is concluded:
        /// results refused for themselves at the head of the queue look alike too.
        var probe: OutboxStore.Stored?
        /// Whether this is the probe's own request (it concludes nothing).
        var probing = false
        /// Results the probe settled (delivered or set aside), not to be sent again.
        var settled: Set<Int64> = []
    }

    private struct State: Sendable {
        var failures = 0
        var notBefore: ContinuousClock.Instant?
        var tally = Tally()
        var lastMisconfiguredStatus: Int?
        /// The refusal that every result met alike, until a batch is accepted.
        var formatRefusal: Refusal?
        /// The last result sent alone and refused alike: not sent alone again for that refusal.
        var formatProbe: Int64?
        var formatReported = false
        /// Whether the network failure under way was reported.
        var networkReported = false
    }

    private struct DeadlineReached: Error {}

    /// Every result of a batch met the same refusal.
    private struct FormatRefused: Error {
        var error: OutboxError
    }

    /// The outbox uploaded from.
    public let outbox: Outbox
    /// Where and how.
    public let configuration: UploadConfiguration
    private let transport: any UploadTransport
    private let sleep: @Sendable (Duration) async throws -> Void
    private let random: @Sendable () -> Double
    private let state = Locked(State())

    /// An uploader of `outbox` to `configuration.url`.
    /// - Parameters:
    ///   - transport: How batches travel; HTTP (AsyncHTTPClient) by default.
    ///   - sleep: How the uploader waits for a back-off; tests may record instead.
    ///   - random: A number in 0..<1 for the jitter.
    /// - Throws: ``OutboxError/invalidURL(_:)``.
    public init(
        outbox: Outbox, configuration: UploadConfiguration, transport: (any UploadTransport)? = nil,
        sleep: (@Sendable (Duration) async throws -> Void)? = nil, random: (@Sendable () -> Double)? = nil
    ) throws(OutboxError) {
        self.outbox = outbox
        self.configuration = configuration
        if let transport {
            self.transport = transport
        } else {
            self.transport = try HTTPUploadTransport(
                url: configuration.url, timeout: configuration.requestTimeout,
                maximumKeptBytes: configuration.maximumKeptResponseBytes)
        }
        self.sleep = sleep ?? { delay in try await Task.sleep(for: delay) }
        self.random = random ?? { Double.random(in: 0..<1) }
    }

    /// What happened so far.
    public var tally: Tally { state.withLock { $0.tally } }

    /// Delivers until the task is cancelled, looking for new results every
    /// ``UploadConfiguration/pollInterval`` when none wait.
    public func run() async {
        while !Task.isCancelled {
            do {
                if try await deliverNextBatch(deadline: nil, background: true) == false {
                    try await Task.sleep(for: Seconds.clamped(configuration.pollInterval))
                }
            } catch is FormatRefused {
                try? await waitForBackoff(deadline: nil)  // reported and counted; cancelled: the loop ends
            } catch {
                if Task.isCancelled { return }
                await reportAndBackOff(error)
            }
        }
    }

    /// Delivers until nothing waits (results appended before are written first),
    /// `timeout` passes (zero or negative: at once; `nil`: no limit), the collector
    /// refuses every result alike, or the task is cancelled. A request under way when the
    /// time runs out is given up; its results stay.
    public func flush(timeout: Duration? = nil) async -> FlushOutcome {
        let deadline = timeout.map { Seconds.after($0) }
        await outbox.waitUntilWritten()
        var outcome = FlushOutcome.empty
        while !Task.isCancelled {
            if let deadline, ContinuousClock.now >= deadline { break }
            do {
                if try await deliverNextBatch(deadline: deadline) == false { return .empty }
            } catch is DeadlineReached {
                break
            } catch let refused as FormatRefused {
                outcome = .stopped(remaining: 0, because: refused.error)
                break
            } catch {
                if Task.isCancelled { break }  // not a failure to report
                await reportAndBackOff(error)
            }
        }
        let remaining = outbox.store.pendingRows + outbox.writer.unwrittenCount
        if remaining == 0 { return .empty }
        if case let .stopped(_, error) = outcome { return .stopped(remaining: remaining, because: error) }
        return .timedOut(remaining: remaining)
    }

    private func reportAndBackOff(_ error: any Error) async {
        outbox.onError(.storage(path: outbox.path, message: "delivery paused: \(error)"))
        recordFailure(retryAfter: nil)
        try? await waitForBackoff(deadline: nil)  // cancelled: the loop ends
    }

    /// Sends the oldest batch; `false` when nothing waits (checked before any back-off is waited).
    /// `background`: ``run()``, which more results may reach; a flush judges what there is.
    private func deliverNextBatch(deadline: ContinuousClock.Instant?, background: Bool = false) async throws -> Bool {
        let batch = try outbox.store.oldest(count: configuration.maximumBatchCount, bytes: configuration.maximumBatchBytes)
        guard !batch.isEmpty else { return false }
        try await waitForBackoff(deadline: deadline)
        let unreadable = batch.filter { $0.defect != nil }
        if !unreadable.isEmpty {
            let dropped = try outbox.store.deadLetter(
                unreadable, status: 0, body: "",
                reason: "unreadable: " + (unreadable.first?.defect ?? ""), now: Date().timeIntervalSince1970)
            state.withLock { $0.tally.deadLettered += unreadable.count - dropped }
            outbox.onError(.unreadableRows(path: outbox.path, count: unreadable.count))
            reportDeadLetterCap(dropped)
        }
        let good = batch.filter { $0.defect == nil }
        if !good.isEmpty {
            // Interrupted (a deadline, a cancellation, a refused format): what was held stays
            // in the queue, to be judged again.
            var bisection = Bisection()
            if good.count > 1 { bisection.probe = good.last }
            try await send(good, deadline: deadline, bisection: &bisection)
            if background, good.count == 1, bisection.held.count == 1, !bisection.broken,
                try outbox.store.oldest(count: 2, bytes: configuration.maximumBatchBytes).count > 1
            {
                // A lone result refused while more were arriving: no evidence yet whether the
                // result or the format is refused. It stays first in the queue and goes again
                // with the ones that arrived, after a back-off.
                recordFailure(retryAfter: nil)
                return true
            }
            try setAsideHeld(&bisection)
        }
        return true
    }

    /// Sends `items` until the collector takes them, or splits them as ``RetryPolicy`` says.
    /// A batch refused (400, 422) is bisected; when the batch, every first half down to one
    /// result and a second single result all meet the same refusal (status and body), the
    /// endpoint refuses the format, not these results: bisecting stops, nothing is set aside.
    /// Before that is concluded, and before a batch is refused for a format refused already,
    /// the batch's last result goes alone: when it meets another answer, the results are
    /// judged one by one.
    private func send(_ items: [OutboxStore.Stored], deadline: ContinuousClock.Instant?, bisection: inout Bisection)
        async throws
    {
        let items = items.filter { !bisection.settled.contains($0.id) }
        guard !items.isEmpty else { return }
        let messages = items.compactMap(\.message)
        var body = WireFormat.encode(messages, sentAt: Date())
        if body.count > configuration.maximumBatchBytes, items.count > 1 {
            let half = items.count / 2
            try await send(Array(items[..<half]), deadline: deadline, bisection: &bisection)
            try await send(Array(items[half...]), deadline: deadline, bisection: &bisection)
            return
        }
        var headers = [("Content-Type", "application/json")]
        if let token = configuration.bearerToken { headers.append(("Authorization", "Bearer \(token)")) }
        if configuration.gzip {
            body = try BodyCompression.gzip(body)
            headers.append(("Content-Encoding", "gzip"))
        }
        var attempt = 0
        while true {
            try await waitForBackoff(deadline: deadline)
            try Task.checkCancellation()
            var timeout = configuration.requestTimeout
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { throw DeadlineReached() }
                timeout = min(timeout, left)
            }
            try outbox.store.setInFlight(items.count)
            let response: UploadResponse
            state.withLock { $0.tally.requests += 1 }
            do {
                response = try await transport.send(
                    body: body, headers: headers + [("X-Anna-Retry-Count", String(attempt))], timeout: timeout)
            } catch {
                try outbox.store.setInFlight(0)
                if Task.isCancelled { throw CancellationError() }
                attempt += 1
                reportNetworkFailure(error)
                recordFailure(retryAfter: nil)
                continue
            }
            try outbox.store.setInFlight(0)
            state.withLock { $0.networkReported = false }
            let retryAfter = response.retryAfter.flatMap { RetryPolicy.retryAfter($0) }
            let refusal = [400, 422].contains(response.status) ? Refusal(status: response.status, body: response.body) : nil
            if bisection.refusal != nil, refusal != bisection.refusal, !bisection.broken {
                bisection.broken = true  // an answer that differs: the results are judged one by one
                try setAsideHeld(&bisection)
            }
            switch RetryPolicy.outcome(of: response.status) {
            case .delivered:
                try outbox.store.delete(ids: items.map(\.id))
                state.withLock { state in
                    state.failures = 0
                    state.lastMisconfiguredStatus = nil
                    state.formatRefusal = nil
                    state.formatProbe = nil
                    state.formatReported = false
                    state.tally.delivered += items.count
                    if let retryAfter { state.notBefore = Seconds.after(min(retryAfter, configuration.maximumRetryAfter)) }
                }
                return
            case .split:
                if let retryAfter { holdOff(retryAfter) }
                if let refusal {
                    if !bisection.probing, state.withLock({ $0.formatRefusal }) == refusal {
                        guard try await probeDiffers(from: refusal, request: items, deadline: deadline, bisection: &bisection) else {
                            throw formatRefused(refusal, retryAfter: retryAfter)
                        }
                        bisection.broken = true  // the collector took or judged the probe otherwise
                    }
                    if bisection.refusal == nil { bisection.refusal = refusal }
                    if items.count == 1, !bisection.broken {
                        bisection.held.append((items[0], response))
                        if bisection.held.count >= 2, !bisection.probing {
                            if try await probeDiffers(from: refusal, request: items, deadline: deadline, bisection: &bisection) {
                                bisection.broken = true
                                try setAsideHeld(&bisection)
                                return
                            }
                            state.withLock { $0.formatRefusal = refusal }
                            throw formatRefused(refusal, retryAfter: retryAfter)
                        }
                        return
                    }
                }
                if items.count == 1 {
                    try setAside(items[0], response: response)
                    return
                }
                let half = items.count / 2
                try await send(Array(items[..<half]), deadline: deadline, bisection: &bisection)
                try await send(Array(items[half...]), deadline: deadline, bisection: &bisection)
                return
            case .retry:
                attempt += 1
                recordFailure(retryAfter: retryAfter)
            case .misconfigured:
                attempt += 1
                let first = state.withLock { state in
                    defer { state.lastMisconfiguredStatus = response.status }
                    return state.lastMisconfiguredStatus != response.status
                }
                if first {
                    outbox.onError(.rejectedByServer(status: response.status, url: configuration.url, body: response.body))
                }
                recordFailure(retryAfter: retryAfter)
            }
        }
    }

    /// Sends the batch's last result alone (once per batch, unless it is held or is the whole
    /// request); `true` when its answer differs from `refusal` (accepted, or refused otherwise
    /// and set aside): the results are then refused each for itself, not for their format.
    private func probeDiffers(
        from refusal: Refusal, request: [OutboxStore.Stored], deadline: ContinuousClock.Instant?, bisection: inout Bisection
    ) async throws -> Bool {
        guard let probe = bisection.probe, request.count > 1 || request.first?.id != probe.id,
            !bisection.held.contains(where: { $0.item.id == probe.id }), state.withLock({ $0.formatProbe }) != probe.id
        else { return false }
        bisection.probe = nil
        var alone = Bisection()
        alone.probing = true
        try await send([probe], deadline: deadline, bisection: &alone)
        if let held = alone.held.first, Refusal(status: held.response.status, body: held.response.body) == refusal {
            state.withLock { $0.formatProbe = probe.id }
            return false  // refused alike: it stays in the queue with the rest
        }
        bisection.settled.insert(probe.id)
        try setAsideHeld(&alone)
        return true
    }

    /// The endpoint refuses every result alike: said once (until a batch is accepted), a
    /// failure for the back-off, the results kept.
    private func formatRefused(_ refusal: Refusal, retryAfter: Duration?) -> FormatRefused {
        let error = OutboxError.formatRefused(status: refusal.status, url: configuration.url, body: refusal.body)
        let first = state.withLock { state in
            defer { state.formatReported = true }
            return !state.formatReported
        }
        if first { outbox.onError(error) }
        recordFailure(retryAfter: retryAfter)
        return FormatRefused(error: error)
    }

    /// Sets aside the single results held while every answer was alike: the answers differed
    /// since, so each was refused for itself.
    private func setAsideHeld(_ bisection: inout Bisection) throws {
        let held = bisection.held
        bisection.held = []
        for (item, response) in held { try setAside(item, response: response) }
    }

    /// Moves one refused result to the dead letters, and says so.
    private func setAside(_ item: OutboxStore.Stored, response: UploadResponse) throws {
        let dropped = try outbox.store.deadLetter(
            [item], status: response.status, body: response.body, reason: "refused by the collector",
            now: Date().timeIntervalSince1970)
        state.withLock { $0.tally.deadLettered += 1 - dropped }
        outbox.onError(
            .refused(status: response.status, messageIds: [item.message?.messageId ?? "?"], body: response.body))
        reportDeadLetterCap(dropped)
    }

    /// Says that `dropped` results could not be set aside because the dead letters are at their cap.
    private func reportDeadLetterCap(_ dropped: Int) {
        guard dropped > 0 else { return }
        outbox.onError(.deadLetterCapReached(path: outbox.path, dropped: dropped, limit: outbox.configuration.maximumDeadLetters))
    }

    /// Reports the first network failure of an outage, with its reason.
    private func reportNetworkFailure(_ error: any Error) {
        let first = state.withLock { state in
            defer { state.networkReported = true }
            return !state.networkReported
        }
        if first { outbox.onError(.unreachable(url: configuration.url, reason: Self.reason(of: error))) }
    }

    /// A network failure in a few words: "connection refused", "no answer within 2 s", ….
    static func reason(of error: any Error) -> String {
        if let timeout = error as? UploadTimeout { return timeout.description }
        let text = String(describing: error)
        let lowered = text.lowercased()
        for (needle, words) in [
            ("refused", "connection refused"), ("reset", "connection reset"), ("unreachable", "network unreachable"),
            ("remoteconnectionclosed", "the connection was closed before the answer"),
            ("timed out", "timed out"), ("connecttimeout", "timed out connecting"),
        ] where lowered.contains(needle) {
            return words
        }
        return text
    }

    /// Counts a failure and moves the pipeline's next send out by the back-off (or by
    /// `Retry-After`, when the collector sent one).
    private func recordFailure(retryAfter: Duration?) {
        let draw = random()
        state.withLock { state in
            state.failures += 1
            state.tally.retries += 1
            let delay =
                retryAfter.map { min($0, configuration.maximumRetryAfter) }
                ?? RetryPolicy.backoff(
                    failures: state.failures, initial: configuration.initialBackoff,
                    maximum: configuration.maximumBackoff, jitter: configuration.jitter, random: draw)
            let until = Seconds.after(delay)
            state.notBefore = max(state.notBefore ?? until, until)
        }
    }

    /// Holds the pipeline for `delay` (a `Retry-After` on a response that is not a failure).
    private func holdOff(_ delay: Duration) {
        let until = Seconds.after(min(delay, configuration.maximumRetryAfter))
        state.withLock { $0.notBefore = max($0.notBefore ?? until, until) }
    }

    /// Waits until the pipeline's back-off is over; throws ``DeadlineReached`` when it ends after `deadline`.
    private func waitForBackoff(deadline: ContinuousClock.Instant?) async throws {
        guard let notBefore = state.withLock({ $0.notBefore }) else { return }
        let now = ContinuousClock.now
        guard notBefore > now else { return }
        if let deadline, notBefore > deadline { throw DeadlineReached() }
        let delay = notBefore - now
        state.withLock { state in
            state.tally.delays.append(delay)
            if state.tally.delays.count > 1000 { state.tally.delays.removeFirst() }
        }
        try await sleep(delay)
        state.withLock { state in
            if let current = state.notBefore, current <= notBefore { state.notBefore = nil }
        }
    }
}
