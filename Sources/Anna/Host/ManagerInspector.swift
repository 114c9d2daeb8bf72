/// Watches a ``Manager`` for a debugging tool (the `AnnaInspector` library's inspector), set
/// as ``Manager/Dependency/inspector``.
///
/// A manager without one pays a single `nil` check per operation. With one, each operation
/// is also handed to ``manager(_:didQueue:time:)`` on the thread that sent it, right after it
/// was queued: keep that call short (count, copy, hand on). Results and errors reach the
/// inspector through ``Manager/results()`` and ``Manager/errors()`` like any observer's.
public protocol ManagerInspector: Sendable {
    /// The manager was made with this inspector (called once, at the end of its `init`).
    func attach(to manager: Manager)
    /// An operation (a registration, an event, a removal) was queued at `time` (ms since the
    /// epoch); called on the sending thread, in the order of the queue for that thread.
    func manager(_ manager: Manager, didQueue operation: ModuleOperation, time: Double)
}
