import Anna
import CoreJS
import Dispatch

/// A manager delegate for tests: collects what a manager delivers, and on which queue.
public final class RecordingDelegate: ManagerDelegate {
    /// Tag a delegate queue with `queue.setSpecific(key: RecordingDelegate.queueKey, value: "name")`
    /// to see its name in ``queueLabels``.
    public static let queueKey = DispatchSpecificKey<String>()

    private struct State {
        var results: [AnalyticsResult] = []
        var errors: [any Error] = []
        var queueLabels: [String?] = []
    }

    private let state = Locked(State())

    /// A delegate that has received nothing yet.
    public init() {}

    /// Keeps `result` and the label of the queue it arrived on.
    public func manager(_ manager: Manager, didSend result: AnalyticsResult) {
        let label = DispatchQueue.getSpecific(key: Self.queueKey)
        state.withLock {
            $0.results.append(result)
            $0.queueLabels.append(label)
        }
    }

    /// Keeps `error`.
    public func manager(_ manager: Manager, didCatch error: any Error) {
        state.withLock { $0.errors.append(error) }
    }

    /// The results so far, in order.
    public var results: [AnalyticsResult] { state.withLock { $0.results } }
    /// The values of the results so far.
    public var values: [JSONValue] { results.map(\.value) }
    /// The errors so far, in order.
    public var errors: [any Error] { state.withLock { $0.errors } }
    /// The errors so far as text.
    public var errorDescriptions: [String] { errors.map { String(describing: $0) } }
    /// Per result, the ``queueKey`` label of the queue it arrived on (`nil`: untagged).
    public var queueLabels: [String?] { state.withLock { $0.queueLabels } }
}
