import CoreJS

/// A value that analyzers can observe (there is no key-value observing on Linux).
///
/// Every assignment notifies the observers; ``Analyzing/observe(_:for:)`` turns each into an
/// `ana-updated` event with `key-path` and `value`.
///
/// ```swift
/// let title = ObservableValue("Loading…")
/// analyzer.observe(title, for: "title")
/// title.value = "Shoes"          // records ana-updated { key-path: "title", value: "Shoes" }
/// ```
public final class ObservableValue<Value: JSONValueConvertible & Sendable>: Sendable {
    private struct State: Sendable {
        var value: Value
        var observers: [Int: @Sendable (Value) -> Void] = [:]
        var nextToken = 0
    }
    private let state: Locked<State>

    /// Creates an observable holding `value`.
    public init(_ value: Value) {
        state = Locked(State(value: value))
    }

    /// The current value; setting it notifies every observer (outside the lock).
    public var value: Value {
        get { state.withLock { $0.value } }
        set {
            let observers = state.withLock { state in
                state.value = newValue
                return Array(state.observers.values)
            }
            for observer in observers { observer(newValue) }
        }
    }

    /// Adds an observer; returns a token for ``removeObserver(_:)``.
    public func addObserver(_ observer: @escaping @Sendable (Value) -> Void) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.observers[state.nextToken] = observer
            return state.nextToken
        }
    }

    /// Removes the observer added with `token`.
    public func removeObserver(_ token: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }
}
