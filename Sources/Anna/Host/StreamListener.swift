import CoreJS

/// The async sequences handed out by ``Manager/results()`` and ``Manager/errors()`` as a
/// ``DeliveryListener``; they end with the manager (their consumers' loops end).
final class StreamListener: DeliveryListener {
    private struct Continuations {
        var results: [Int: AsyncStream<AnalyticsResult>.Continuation] = [:]
        var errors: [Int: AsyncStream<any Error>.Continuation] = [:]
        var nextToken = 0

        /// Keeps `continuation` under a new token, returned.
        mutating func add<Element>(
            _ continuation: AsyncStream<Element>.Continuation, to continuations: WritableKeyPath<Self, [Int: AsyncStream<Element>.Continuation]>
        ) -> Int {
            nextToken += 1
            self[keyPath: continuations][nextToken] = continuation
            return nextToken
        }
    }

    private let continuations = Locked(Continuations())

    let storesResults = false

    deinit {
        let (results, errors) = continuations.withLock { (Array($0.results.values), Array($0.errors.values)) }
        for continuation in results { continuation.finish() }
        for continuation in errors { continuation.finish() }
    }

    /// A new sequence of every result delivered from now on.
    func results() -> AsyncStream<AnalyticsResult> {
        let (stream, continuation) = AsyncStream<AnalyticsResult>.makeStream()
        let token = continuations.withLock { $0.add(continuation, to: \.results) }
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { $0.results[token] = nil }
        }
        return stream
    }

    /// A new sequence of every error delivered from now on.
    func errors() -> AsyncStream<any Error> {
        let (stream, continuation) = AsyncStream<any Error>.makeStream()
        let token = continuations.withLock { $0.add(continuation, to: \.errors) }
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { $0.errors[token] = nil }
        }
        return stream
    }

    func receiver(for manager: Manager) -> (any DeliveryReceiver)? {
        let (results, errors) = continuations.withLock { (Array($0.results.values), Array($0.errors.values)) }
        guard !results.isEmpty || !errors.isEmpty else { return nil }
        return Receiver(results: results, errors: errors)
    }

    private struct Receiver: DeliveryReceiver {
        let results: [AsyncStream<AnalyticsResult>.Continuation]
        let errors: [AsyncStream<any Error>.Continuation]
        var takesResults: Bool { !results.isEmpty }
        var handlesErrors: Bool { !errors.isEmpty }

        func receive(_ result: consuming AnalyticsResult) {
            for continuation in results { continuation.yield(copy result) }
        }

        func receive(_ error: any Error) {
            for continuation in errors { continuation.yield(error) }
        }
    }
}
