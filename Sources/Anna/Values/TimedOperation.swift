/// A module operation with the time (ms since the epoch) the core's clock shows for it.
public struct TimedOperation: Sendable, Equatable {
    /// The operation.
    public var operation: ModuleOperation
    /// The clock for it; `nil` means the engine's ``AnalyticsEngine/time`` (or the wall clock).
    public var time: Double?

    /// Creates a timed operation.
    public init(_ operation: ModuleOperation, time: Double? = nil) {
        self.operation = operation
        self.time = time
    }
}
