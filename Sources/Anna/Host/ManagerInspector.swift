/// Watches a ``Manager`` for a debugging tool (the `AnnaInspector` library's inspector), set
/// as ``Manager/Dependency/inspector``.
///
/// A manager without one pays a single `nil` check per operation and per delivery. With one,
/// the calls below are made on the manager's hot paths: keep them short (count, sample, copy
/// into a buffer) and leave the rest to another thread.
public protocol ManagerInspector: Sendable {
    /// The manager was made with this inspector (called once, at the end of its `init`).
    func attach(to manager: Manager)
    /// A registration or a removal was queued at `time` (ms since the epoch), on the sending thread.
    func manager(_ manager: Manager, didQueue operation: ModuleOperation, time: Double)
    /// An event was queued at `time` (ms since the epoch), on the sending thread (its properties
    /// are not passed: reading them would cost every event).
    func manager(_ manager: Manager, didQueueEvent name: String, on node: NodeID, time: Double)
    /// A result was handed to the delegate queue's observers; called there, in order, before
    /// the delegate sees it.
    func manager(_ manager: Manager, didDeliver result: AnalyticsResult)
    /// An error was handed to the delegate queue's observers; called there, in order.
    func manager(_ manager: Manager, didReport error: any Error)
    /// A block of results and errors was delivered (called on the delegate queue after the
    /// calls above for that block): a place to hand what was buffered on.
    func managerDidFinishDelivery(_ manager: Manager)
}
