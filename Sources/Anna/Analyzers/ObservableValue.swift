import CoreJS

/// A value that analyzers can observe (there is no key-value observing on Linux).
///
/// An assignment that changes the value notifies the observers; ``Analyzing/observe(_:for:)``
/// turns each into an `ana-updated` event with `key-path` and `value`. Assigning a value
/// equal to the current one (the same JSON) notifies nobody, as the reference's key-value
/// observer records nothing when the old and new values are equal.
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

    /// The current value; setting another value notifies every observer (outside the lock).
    public var value: Value {
        get { state.withLock { $0.value } }
        set {
            let observers = state.withLock { state -> [@Sendable (Value) -> Void] in
                let changed = state.value.jsonValue != newValue.jsonValue
                state.value = newValue
                return changed ? Array(state.observers.values) : []
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
