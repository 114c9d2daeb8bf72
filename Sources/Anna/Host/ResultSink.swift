/// Where a ``Manager`` also hands every result it delivers, e.g. a durable outbox that uploads
/// them (the `AnnaOutbox` library's `Outbox`), set as ``Manager/Dependency/outbox``.
///
/// The manager calls ``append(_:time:)`` on its delegate queue, once per result, in the
/// order results are delivered, before the delegate sees the result. An error thrown (a
/// result the sink refuses) goes to the delegate's `didCatch` like every other error.
public protocol ResultSink: Sendable {
    /// Takes one result; returns at once (a sink never waits for a disk or a network).
    /// - Parameters:
    ///   - result: The result, with its task, path and event when the core names them; its
    ///     ``AnalyticsResult/jsonText`` is the engine's own text (no second encoding).
    ///   - time: When the event that produced it happened (``AnalyticsResult/time``), or when
    ///     the manager delivered it if that is not known; milliseconds since the epoch.
    /// - Throws: When the result is refused (too large, the sink closed); the manager reports it.
    func append(_ result: AnalyticsResult, time: Double) throws

    /// Waits until every result appended so far is stored durably, or until `deadline`; the
    /// manager calls it when the process exits (after its own last results are delivered),
    /// then once more with a deadline passed, to count what is still not stored: it should
    /// return at once then.
    /// - Returns: How many appended results are not stored (lost if the process ends now).
    func drain(before deadline: ContinuousClock.Instant) -> Int

    /// What ``drain(before:)`` waits for: the drain at exit drains the sinks of live managers
    /// that share one identity once. A class sink is itself by default; a structure is `nil`
    /// by default (each manager's copy is drained), and one that wraps a shared store should
    /// name the store.
    var drainIdentity: ObjectIdentifier? { get }
}

extension ResultSink {
    /// A sink that stores as it appends has nothing to wait for.
    public func drain(before deadline: ContinuousClock.Instant) -> Int { 0 }

    /// A structure's copies cannot be told apart: each is drained.
    public var drainIdentity: ObjectIdentifier? { nil }
}

extension ResultSink where Self: AnyObject {
    /// A class sink is drained once however many managers share it.
    public var drainIdentity: ObjectIdentifier? { ObjectIdentifier(self) }
}
