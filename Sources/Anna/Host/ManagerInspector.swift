/// Watches a ``Manager`` for a debugging tool (the `AnnaInspector` library's inspector), set
/// as ``Manager/Dependency/inspector``.
///
/// A manager without one pays a single `nil` check per operation and per delivery. With one,
/// the calls below are made on the manager's hot paths: keep them short (count, sample, copy
/// into a buffer) and leave the rest to another thread. An inspector is an object: the manager
/// holds it strongly; it may hold the manager weakly (see ``attach(to:)``).
public protocol ManagerInspector: AnyObject, Sendable {
    /// The manager was made with this inspector (called once, at the end of its `init`).
    func attach(to manager: Manager)
    /// A registration or a removal was queued at `time` (ms since the epoch), on the sending thread.
    func manager(_ manager: Manager, didQueue operation: ModuleOperation, time: Double)
    /// An event was queued at `time` (ms since the epoch), on the sending thread (its properties
    /// are not passed: reading them would cost every event).
    func manager(_ manager: Manager, didQueueEvent name: String, on node: NodeID, time: Double)
    /// How many of a delivered block's last results ``manager(_:didDeliver:)`` receives (the
    /// rest are counted only); read once per block.
    var resultsKeptPerBlock: Int { get }
    /// A block of results and errors was delivered: called on the delegate queue, in order,
    /// once the delegate and the async sequences have seen the block.
    func manager(_ manager: Manager, didDeliver block: DeliveredBlock)
}
