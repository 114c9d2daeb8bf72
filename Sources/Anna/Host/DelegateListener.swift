import CoreJS
import Logging

/// The manager's delegate as a ``DeliveryListener``: held weakly, as delegates are; a
/// delegate released while results arrive is said once to the logger.
final class DelegateListener: DeliveryListener {
    private struct State {
        var delegate = WeakDelegate()
        /// Whether the delegate was set to an object, which may since have been released.
        var wasSet = false
        var releaseReported = false
    }

    private struct WeakDelegate: @unchecked Sendable {
        weak var value: (any ManagerDelegate)?
    }

    private let state = Locked(State())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    let storesResults = false

    /// The delegate, held weakly.
    var delegate: (any ManagerDelegate)? {
        get { state.withLock { $0.delegate.value } }
        set {
            state.withLock {
                $0.delegate = WeakDelegate(value: newValue)
                $0.wasSet = newValue != nil
                $0.releaseReported = false
            }
        }
    }

    func receiver(for manager: Manager) -> (any DeliveryReceiver)? {
        let (delegate, released) = state.withLock { state in
            let delegate = state.delegate.value
            let released = delegate == nil && state.wasSet && !state.releaseReported
            if released { state.releaseReported = true }
            return (delegate, released)
        }
        if released {
            logger.warning(
                "the manager's delegate was released, so results are no longer delivered to it: the manager holds its delegate weakly; keep a strong reference to it"
            )
        }
        return delegate.map { Receiver(delegate: $0, manager: manager) }
    }

    private struct Receiver: DeliveryReceiver {
        let delegate: any ManagerDelegate
        let manager: Manager
        var takesResults: Bool { true }
        var handlesErrors: Bool { true }

        func receive(_ result: consuming AnalyticsResult) {
            receive(borrowing: result)
        }

        func receive(borrowing result: borrowing AnalyticsResult) {
            delegate.manager(manager, didSend: result)
        }

        func receive(_ error: any Error) {
            delegate.manager(manager, didCatch: error)
        }
    }
}
