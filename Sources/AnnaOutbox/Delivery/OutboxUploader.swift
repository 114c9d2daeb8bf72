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
        /// The last failure in words (`503 from URL`, `connection refused`), for a summary.
        public var lastFailure: String?
        /// Why the last result was set aside, in words.
        public var lastSetAside: String?
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
    struct Bisection {
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

    struct State: Sendable {
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
        /// Since when fewer than ``UploadConfiguration/flushAt`` results wait (``run()``).
        var waitingSince: ContinuousClock.Instant?
        /// Why delivery stopped (the key was refused), once it has.
        var stopped: OutboxError?
        /// The kinds of unsendable results already reported (``DestinationEncoder/Refusal/kind``).
        var unsendableReported: Set<String> = []
    }

    struct DeadlineReached: Error {}

    /// The destination refused the key: nothing more is sent.
    struct Stopped: Error {
        var error: OutboxError
    }

    /// Every result of a batch met the same refusal.
    struct FormatRefused: Error {
        var error: OutboxError
    }

    /// The outbox uploaded from.
    public let outbox: Outbox
    /// Where and how.
    public let configuration: UploadConfiguration
    let transport: any UploadTransport
    let sleep: @Sendable (Duration) async throws -> Void
    let random: @Sendable () -> Double
    let state = Locked(State())
    let encoder: DestinationEncoder

    /// An uploader of `outbox` to `configuration.url`.
    /// - Parameters:
    ///   - outbox: The outbox whose results are sent.
    ///   - configuration: Where to and with what limits and back-off.
    ///   - transport: How batches travel; HTTP (AsyncHTTPClient) by default.
    ///   - sleep: How the uploader waits for a back-off; tests may record instead.
    ///   - random: A number in 0..<1 for the jitter.
    /// - Throws: ``OutboxError/invalidURL(_:)``, ``OutboxError/unknownDestination(name:known:)``
    ///   when ``UploadConfiguration/destination`` is not one of the outbox's destinations.
    public init(
        outbox: Outbox, configuration: UploadConfiguration, transport: (any UploadTransport)? = nil,
        sleep: (@Sendable (Duration) async throws -> Void)? = nil, random: (@Sendable () -> Double)? = nil
    ) throws(OutboxError) {
        let known = outbox.configuration.destinations.isEmpty ? [""] : outbox.configuration.destinations
        guard known.contains(configuration.destination) else {
            throw .unknownDestination(name: configuration.destination, known: known)
        }
        self.outbox = outbox
        self.configuration = configuration
        encoder = DestinationEncoder(
            format: configuration.format, apiKey: configuration.apiKey, maximumEventBytes: configuration.maximumEventBytes)
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

    /// Why delivery stopped, when the destination refused the key (``OutboxError/unauthorized(status:url:body:)``).
    public var stoppedBecause: OutboxError? { state.withLock { $0.stopped } }

    /// Delivers until the task is cancelled or the destination refuses the key, looking for
    /// new results every ``UploadConfiguration/pollInterval`` when none wait. Fewer than
    /// ``UploadConfiguration/flushAt`` results wait up to ``UploadConfiguration/flushInterval``.
    public func run() async {
        while !Task.isCancelled {
            do {
                if try await deliverNextBatch(deadline: nil, background: true) == false {
                    try await Task.sleep(for: Seconds.clamped(configuration.pollInterval))
                }
            } catch is Stopped {
                return  // said once, loudly; the results stay for a run with the right key
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
            } catch let stopped as Stopped {
                outcome = .stopped(remaining: 0, because: stopped.error)
                break
            } catch {
                if Task.isCancelled { break }  // not a failure to report
                await reportAndBackOff(error)
            }
        }
        let remaining: Int
        do {
            remaining =
                try outbox.store.pendingCount(destination: configuration.destination)
                + outbox.writer.unwrittenCount(destination: configuration.destination)
        } catch {
            // Said; every destination's rows are counted instead, so the flush is not taken for done.
            outbox.onError(.storage(path: outbox.path, message: "cannot count the results left: \(error)"))
            remaining = outbox.store.pendingRows
        }
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
        if let stopped = state.withLock({ $0.stopped }) { throw Stopped(error: stopped) }
        var batch = try outbox.store.oldest(
            destination: configuration.destination, count: configuration.maximumBatchCount,
            bytes: configuration.maximumBatchBytes)
        let setAside = outbox.store.reportGroupDamage(to: outbox.onError)
        if setAside > 0 { state.withLock { $0.tally.deadLettered += setAside } }
        guard !batch.isEmpty else { return false }
        if background, batch.count < configuration.flushAt, !waitedLongEnough() { return false }
        state.withLock { $0.waitingSince = nil }
        try await waitForBackoff(deadline: deadline)
        if configuration.format != .anna { try encode(&batch) }
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
                try outbox.store.oldest(destination: configuration.destination, count: 2, bytes: configuration.maximumBatchBytes)
                    .count > 1
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
    func send(_ items: [OutboxStore.Stored], deadline: ContinuousClock.Instant?, bisection: inout Bisection)
        async throws
    {
        let items = items.filter { !bisection.settled.contains($0.id) }
        guard !items.isEmpty else { return }
        var body =
            configuration.format == .anna
            ? WireFormat.encode(items.compactMap(\.message), sentAt: Date())
            : encoder.body(items.compactMap(\.encoded), sentAt: Date())
        if body.count > configuration.maximumBatchBytes, items.count > 1 {
            let half = items.count / 2
            try await send(Array(items[..<half]), deadline: deadline, bisection: &bisection)
            try await send(Array(items[half...]), deadline: deadline, bisection: &bisection)
            return
        }
        var headers = encoder.headers
        if let token = configuration.bearerToken { headers.append(("Authorization", "Bearer \(token)")) }
        headers += configuration.headers.map { ($0.name, $0.value) }
        if configuration.gzip {
            body = try BodyCompression.gzip(body)
            headers.append(("Content-Encoding", "gzip"))
        }
        if let secret = configuration.signingSecret {
            headers.append((RequestSigner.header, RequestSigner.signature(of: body, secret: secret)))
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
            try outbox.store.setInFlight(items.count, destination: configuration.destination)
            let response: UploadResponse
            state.withLock { $0.tally.requests += 1 }
            do {
                response = try await transport.send(
                    body: body, headers: headers + [("X-Anna-Retry-Count", String(attempt))], timeout: timeout)
            } catch {
                try outbox.store.setInFlight(0, destination: configuration.destination)
                if Task.isCancelled { throw CancellationError() }
                // A request cut short by the flush's own deadline says nothing new about the
                // destination: the reason already known (a 503, say) stays the one reported.
                if error is UploadTimeout, timeout < configuration.requestTimeout,
                    state.withLock({ $0.tally.lastFailure != nil })
                {
                    throw DeadlineReached()
                }
                attempt += 1
                reportNetworkFailure(error)
                recordFailure(retryAfter: nil)
                continue
            }
            try outbox.store.setInFlight(0, destination: configuration.destination)
            state.withLock { $0.networkReported = false }
            if let unauthorized = unauthorized(response) { throw stop(unauthorized) }
            if configuration.format == .amplitude, response.status == 400,
                let invalid = AmplitudeAnswer.invalidEvents(in: response.body, count: items.count)
            {
                try setAside(invalid.sorted().map { items[$0] }, response: response)
                let rest = items.indices.filter { !invalid.contains($0) }.map { items[$0] }
                try await send(rest, deadline: deadline, bisection: &bisection)
                return
            }
            let retryAfter = response.retryAfter.flatMap { RetryPolicy.retryAfter($0) }
            let refusal = [400, 422].contains(response.status) ? Refusal(status: response.status, body: response.body) : nil
            if bisection.refusal != nil, refusal != bisection.refusal, !bisection.broken {
                bisection.broken = true  // an answer that differs: the results are judged one by one
                try setAsideHeld(&bisection)
            }
            switch RetryPolicy.outcome(of: response.status) {
            case .delivered:
                try outbox.store.delete(items)
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
                state.withLock { $0.tally.lastFailure = "\(response.status) from \(configuration.url)" }
                recordFailure(retryAfter: retryAfter)
            case .refusedKey:
                throw stop(.unauthorized(status: response.status, url: configuration.url, body: response.body))  // checked above
            case .misconfigured:
                attempt += 1
                let first = state.withLock { state in
                    defer { state.lastMisconfiguredStatus = response.status }
                    return state.lastMisconfiguredStatus != response.status
                }
                if first {
                    outbox.onError(.rejectedByServer(status: response.status, url: configuration.url, body: response.body))
                }
                state.withLock { $0.tally.lastFailure = "\(response.status) from \(configuration.url)" }
                recordFailure(retryAfter: retryAfter)
            }
        }
    }
}
