import Foundation

/// The pipeline's back-off: one schedule for every batch, moved out by failures and by
/// `Retry-After`.
extension OutboxUploader {
    /// Counts a failure and moves the pipeline's next send out by the back-off (or by
    /// `Retry-After`, when the collector sent one).
    func recordFailure(retryAfter: Duration?) {
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
    func holdOff(_ delay: Duration) {
        let until = Seconds.after(min(delay, configuration.maximumRetryAfter))
        state.withLock { $0.notBefore = max($0.notBefore ?? until, until) }
    }

    /// Waits until the pipeline's back-off is over; throws ``DeadlineReached`` when it ends after `deadline`.
    func waitForBackoff(deadline: ContinuousClock.Instant?) async throws {
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
