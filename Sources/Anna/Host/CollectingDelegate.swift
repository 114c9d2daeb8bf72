import CoreJS
import Dispatch

/// A ready-made ``ManagerDelegate`` that keeps what the manager delivers, or hands each
/// result and error to closures: the natural delegate under strict concurrency, where a
/// delegate with state of its own would need a lock.
///
/// ```swift
/// let collector = CollectingDelegate()
/// manager.delegate = collector            // the manager holds it weakly: keep it
/// …
/// await manager.flush()
/// print(collector.results.map(\.value))
/// ```
///
/// Or with closures (called on the manager's `delegateQueue`):
///
/// ```swift
/// let delegate = CollectingDelegate(onResult: { print($0.value) }, onError: { print("error:", $0) })
/// ```
public final class CollectingDelegate: ManagerDelegate {
    private struct State {
        var results: [AnalyticsResult] = []
        var errors: [any Error] = []
    }

    private let state = Locked(State())
    private let onResult: (@Sendable (AnalyticsResult) -> Void)?
    private let onError: (@Sendable (any Error) -> Void)?
    /// Whether delivered results and errors are kept (``results``, ``errors``).
    public let keepsDeliveries: Bool

    /// A delegate that keeps every result and error (`keeping: true`, the default), and calls
    /// `onResult` and `onError`, when given, with each.
    public init(
        keeping: Bool = true, onResult: (@Sendable (AnalyticsResult) -> Void)? = nil,
        onError: (@Sendable (any Error) -> Void)? = nil
    ) {
        keepsDeliveries = keeping
        self.onResult = onResult
        self.onError = onError
    }

    /// Keeps `result` and calls `onResult`.
    public func manager(_ manager: Manager, didSend result: AnalyticsResult) {
        if keepsDeliveries { state.withLock { $0.results.append(result) } }
        onResult?(result)
    }

    /// Keeps `error` and calls `onError`; without `onError`, the error also goes to the
    /// manager's logger, so it is never lost.
    public func manager(_ manager: Manager, didCatch error: any Error) {
        if keepsDeliveries { state.withLock { $0.errors.append(error) } }
        if let onError {
            onError(error)
        } else {
            manager.dependency.logger.log(level: ResultDelivery.logLevel(of: error), "\(error)")
        }
    }

    /// The results delivered so far, in order.
    public var results: [AnalyticsResult] { state.withLock { $0.results } }

    /// The errors delivered so far, in order.
    public var errors: [any Error] { state.withLock { $0.errors } }

    /// Forgets what was kept.
    public func removeAll() {
        state.withLock { $0 = State() }
    }
}
