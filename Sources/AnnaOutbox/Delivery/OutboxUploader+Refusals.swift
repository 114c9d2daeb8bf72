import Foundation

/// Refused results: the probe that tells a refused format from refused results, the dead
/// letters, and the reports of refusals and network failures.
extension OutboxUploader {
    /// Sends the batch's last result alone (once per batch, unless it is held or is the whole
    /// request); `true` when its answer differs from `refusal` (accepted, or refused otherwise
    /// and set aside): the results are then refused each for itself, not for their format.
    func probeDiffers(
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
    func formatRefused(_ refusal: Refusal, retryAfter: Duration?) -> FormatRefused {
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
    func setAsideHeld(_ bisection: inout Bisection) throws {
        let held = bisection.held
        bisection.held = []
        for (item, response) in held { try setAside(item, response: response) }
    }

    /// Moves one refused result to the dead letters, and says so.
    func setAside(_ item: OutboxStore.Stored, response: UploadResponse) throws {
        let dropped = try outbox.store.deadLetter(
            [item], status: response.status, body: response.body, reason: "refused by the collector",
            now: Date().timeIntervalSince1970)
        state.withLock { state in
            state.tally.deadLettered += 1 - dropped
            state.tally.lastSetAside = "\(response.status) from \(configuration.url) (\(response.body.prefix(120)))"
        }
        outbox.onError(
            .refused(status: response.status, messageIds: [item.message?.messageId ?? "?"], body: response.body))
        reportDeadLetterCap(dropped)
    }

    /// Says that `dropped` results could not be set aside because the dead letters are at their cap.
    func reportDeadLetterCap(_ dropped: Int) {
        guard dropped > 0 else { return }
        outbox.onError(.deadLetterCapReached(path: outbox.path, dropped: dropped, limit: outbox.configuration.maximumDeadLetters))
    }

    /// Reports the first network failure of an outage, with its reason.
    func reportNetworkFailure(_ error: any Error) {
        let first = state.withLock { state in
            defer { state.networkReported = true }
            return !state.networkReported
        }
        let reason = Self.reason(of: error)
        state.withLock { $0.tally.lastFailure = "\(configuration.url): \(reason)" }
        if first { outbox.onError(.unreachable(url: configuration.url, reason: reason)) }
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
}
