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
        /// The back-off delays waited, in seconds, in order (the last 1,000).
        public var delays: [Double] = []
    }

    /// Why ``flush(timeoutSeconds:)`` ended.
    public enum FlushOutcome: Sendable, Equatable {
        /// Nothing is left to send.
        case empty
        /// The time ran out with `remaining` results still waiting.
        case timedOut(remaining: Int)
    }

    private struct State: Sendable {
        var failures = 0
        var notBefore: ContinuousClock.Instant?
        var tally = Tally()
        var lastMisconfiguredStatus: Int?
    }

    private struct DeadlineReached: Error {}

    /// The outbox uploaded from.
    public let outbox: Outbox
    /// Where and how.
    public let configuration: UploadConfiguration
    private let transport: any UploadTransport
    private let sleep: @Sendable (Double) async throws -> Void
    private let random: @Sendable () -> Double
    private let state = Locked(State())

    /// An uploader of `outbox` to `configuration.url`.
    /// - Parameters:
    ///   - transport: How batches travel; HTTP (AsyncHTTPClient) by default.
    ///   - sleep: How the uploader waits for a back-off (seconds); tests may record instead.
    ///   - random: A number in 0..<1 for the jitter.
    /// - Throws: ``OutboxError/invalidURL(_:)``.
    public init(
        outbox: Outbox, configuration: UploadConfiguration, transport: (any UploadTransport)? = nil,
        sleep: (@Sendable (Double) async throws -> Void)? = nil, random: (@Sendable () -> Double)? = nil
    ) throws(OutboxError) {
        self.outbox = outbox
        self.configuration = configuration
        if let transport {
            self.transport = transport
        } else {
            self.transport = try HTTPUploadTransport(
                url: configuration.url, timeoutSeconds: configuration.requestTimeoutSeconds,
                maximumKeptBytes: configuration.maximumKeptResponseBytes)
        }
        self.sleep = sleep ?? { seconds in try await Task.sleep(for: .milliseconds(Int64(seconds * 1000))) }
        self.random = random ?? { Double.random(in: 0..<1) }
    }

    /// What happened so far.
    public var tally: Tally { state.withLock { $0.tally } }

    /// Delivers until the task is cancelled, looking for new results every
    /// ``UploadConfiguration/pollIntervalSeconds`` when none wait.
    public func run() async {
        while !Task.isCancelled {
            do {
                if try await deliverNextBatch(deadline: nil) == false {
                    try await Task.sleep(for: .milliseconds(Int64(configuration.pollIntervalSeconds * 1000)))
                }
            } catch {
                if Task.isCancelled { return }
                await reportAndBackOff(error)
            }
        }
    }

    /// Delivers until nothing waits (results appended before are written first),
    /// `timeoutSeconds` pass or the task is cancelled.
    public func flush(timeoutSeconds: Double? = nil) async -> FlushOutcome {
        let deadline = timeoutSeconds.map { ContinuousClock.now + .milliseconds(Int64($0 * 1000)) }
        await outbox.waitUntilWritten()
        while !Task.isCancelled {
            if let deadline, ContinuousClock.now >= deadline { break }
            do {
                if try await deliverNextBatch(deadline: deadline) == false { return .empty }
            } catch is DeadlineReached {
                break
            } catch {
                if Task.isCancelled { break }  // not a failure to report
                await reportAndBackOff(error)
            }
        }
        return .timedOut(remaining: outbox.store.pendingRows + outbox.writer.unwrittenCount)
    }

    private func reportAndBackOff(_ error: any Error) async {
        outbox.onError(.storage(path: outbox.path, message: "delivery paused: \(error)"))
        recordFailure(retryAfter: nil)
        try? await waitForBackoff(deadline: nil)  // cancelled: the loop ends
    }

    /// Sends the oldest batch; `false` when nothing waits.
    private func deliverNextBatch(deadline: ContinuousClock.Instant?) async throws -> Bool {
        try await waitForBackoff(deadline: deadline)
        let batch = try outbox.store.oldest(count: configuration.maximumBatchCount, bytes: configuration.maximumBatchBytes)
        guard !batch.isEmpty else { return false }
        let unreadable = batch.filter { $0.defect != nil }
        if !unreadable.isEmpty {
            try outbox.store.deadLetter(
                unreadable, status: 0, body: "",
                reason: "unreadable: " + (unreadable.first?.defect ?? ""), now: Date().timeIntervalSince1970)
            state.withLock { $0.tally.deadLettered += unreadable.count }
            outbox.onError(.unreadableRows(path: outbox.path, count: unreadable.count))
        }
        let good = batch.filter { $0.defect == nil }
        if !good.isEmpty { try await send(good, deadline: deadline) }
        return true
    }

    /// Sends `items` until the collector takes them, or splits them as ``RetryPolicy`` says.
    private func send(_ items: [OutboxStore.Stored], deadline: ContinuousClock.Instant?) async throws {
        let messages = items.compactMap(\.message)
        var body = WireFormat.encode(messages, sentAt: Date())
        if body.count > configuration.maximumBatchBytes, items.count > 1 {
            let half = items.count / 2
            try await send(Array(items[..<half]), deadline: deadline)
            try await send(Array(items[half...]), deadline: deadline)
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
            try outbox.store.setInFlight(items.count)
            let response: UploadResponse
            state.withLock { $0.tally.requests += 1 }
            do {
                response = try await transport.send(body: body, headers: headers + [("X-Anna-Retry-Count", String(attempt))])
            } catch {
                try outbox.store.setInFlight(0)
                if Task.isCancelled { throw CancellationError() }
                attempt += 1
                recordFailure(retryAfter: nil)
                continue
            }
            try outbox.store.setInFlight(0)
            let retryAfter = response.retryAfter.flatMap { RetryPolicy.retryAfterSeconds($0) }
            switch RetryPolicy.outcome(of: response.status) {
            case .delivered:
                try outbox.store.delete(ids: items.map(\.id))
                state.withLock { state in
                    state.failures = 0
                    state.lastMisconfiguredStatus = nil
                    state.tally.delivered += items.count
                    if let retryAfter { state.notBefore = .now + .milliseconds(Int64(retryAfter * 1000)) }
                }
                return
            case .split:
                if let retryAfter { holdOff(seconds: retryAfter) }
                if items.count == 1 {
                    try outbox.store.deadLetter(
                        items, status: response.status, body: response.body,
                        reason: "refused by the collector", now: Date().timeIntervalSince1970)
                    state.withLock { $0.tally.deadLettered += 1 }
                    outbox.onError(.refused(status: response.status, messageIds: messages.map(\.messageId), body: response.body))
                    return
                }
                let half = items.count / 2
                try await send(Array(items[..<half]), deadline: deadline)
                try await send(Array(items[half...]), deadline: deadline)
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

    /// Counts a failure and moves the pipeline's next send out by the back-off (or by
    /// `Retry-After`, when the collector sent one).
    private func recordFailure(retryAfter: Double?) {
        let draw = random()
        state.withLock { state in
            state.failures += 1
            state.tally.retries += 1
            let delay =
                retryAfter.map { min($0, configuration.maximumRetryAfterSeconds) }
                ?? RetryPolicy.backoff(
                    failures: state.failures, initial: configuration.initialBackoffSeconds,
                    maximum: configuration.maximumBackoffSeconds, jitter: configuration.jitter, random: draw)
            let until = ContinuousClock.now + .milliseconds(Int64(delay * 1000))
            state.notBefore = max(state.notBefore ?? until, until)
        }
    }

    /// Holds the pipeline for `seconds` (a `Retry-After` on a response that is not a failure).
    private func holdOff(seconds: Double) {
        let until = ContinuousClock.now + .milliseconds(Int64(min(seconds, configuration.maximumRetryAfterSeconds) * 1000))
        state.withLock { $0.notBefore = max($0.notBefore ?? until, until) }
    }

    /// Waits until the pipeline's back-off is over; throws ``DeadlineReached`` when it ends after `deadline`.
    private func waitForBackoff(deadline: ContinuousClock.Instant?) async throws {
        guard let notBefore = state.withLock({ $0.notBefore }) else { return }
        let now = ContinuousClock.now
        guard notBefore > now else { return }
        if let deadline, notBefore > deadline { throw DeadlineReached() }
        let seconds = Double((notBefore - now).components.attoseconds) / 1e18 + Double((notBefore - now).components.seconds)
        state.withLock { state in
            state.tally.delays.append(seconds)
            if state.tally.delays.count > 1000 { state.tally.delays.removeFirst() }
        }
        try await sleep(seconds)
        state.withLock { state in
            if let current = state.notBefore, current <= notBefore { state.notBefore = nil }
        }
    }
}
