/// One registration of an analyzer's node with a manager.
///
/// Deregistering a node cancels its registration, and with it, implicitly, those of its
/// descendants (the core removes their nodes too): a registration is live only while no
/// registration up its chain is cancelled. Analyzers check their own chain when used, so a
/// parent keeps no references to its children. A leaf analyzer (which hosts retain on
/// every event) is then the target of no weak reference, which would move its reference
/// counting to a slower side table.
///
/// A *kept* node belongs to a position under its parent (a table's row), not to the analyzer
/// that shows it: the parent's record keeps it (``keptChildren``), and each analyzer bound to
/// it gets a registration of its own whose ``kept`` is that record. Releasing the analyzer
/// cancels only its own registration; the node stays, with its values, for the next
/// analyzer bound to the position.
///
/// Only touched under ``Analyzer``'s lock, which also guards the static count.
final class NodeRegistration {
    /// The node's ID.
    let id: NodeID
    /// The node's name (for the path a debug message shows).
    let name: String
    /// The manager the node was registered with.
    let manager: Manager
    /// ``manager`` for the per-event path, which calls it without retaining it: a manager
    /// that an inspector watches (weakly) counts its references in a slower side table.
    private let unretainedManager: Unmanaged<Manager>
    /// The parent node's registration; `nil` for the root.
    let parent: NodeRegistration?
    /// The record of the kept node this registration binds an analyzer to; `nil` when the
    /// registration is the node's record itself.
    let kept: NodeRegistration?
    /// The kept nodes registered under this record, by ID.
    var keptChildren: [NodeID: KeptNode] = [:]
    private var isCancelled = false
    /// On the root's registration, its analyzer (set by it), unretained: the root keeps its
    /// registration and cancels it when it goes, and no chain under a cancelled registration
    /// is used.
    var rootAnalyzer: Unmanaged<RootAnalyzer>?
    /// The value of ``cancellations`` when the chain was last found live (-1: never).
    private var checkedAt = -1
    /// How many registrations were ever cancelled (under ``Analyzer``'s lock).
    nonisolated(unsafe) private static var cancellations = 0

    init(id: NodeID, name: String, manager: Manager, parent: NodeRegistration?, kept: NodeRegistration? = nil) {
        self.id = id
        self.name = name
        self.manager = manager
        unretainedManager = Unmanaged.passUnretained(manager)
        self.parent = parent
        self.kept = kept
    }

    /// Sends an event on the node to the manager (``manager`` keeps it alive meanwhile).
    func sendEvent(name: String, properties: EventProperties, time: Double) {
        unretainedManager._withUnsafeGuaranteedRef { $0.sendEvent(id: id, name: name, properties: properties, time: time) }
    }

    /// The registration that stands for the node in the core: the kept record, or this one.
    var record: NodeRegistration { kept ?? self }

    /// Whether neither this registration nor one up its chain was cancelled (nor, for a
    /// binding to a kept node, the node's record).
    var isLive: Bool {
        // Checked on every event: the chain is walked without retaining each link, and
        // only when some registration was cancelled since the last walk that found it live.
        let cancellations = Self.cancellations
        if checkedAt == cancellations { return true }
        unowned(unsafe) var current = self
        while !current.isCancelled {
            if let kept = current.kept, !kept.isLive { return false }
            guard let parent = current.parent else {
                checkedAt = cancellations
                return true
            }
            current = parent
        }
        return false
    }

    /// The root analyzer at the top of the chain, unretained (see ``rootAnalyzer``); to be
    /// used while this registration is live, under the analyzers' lock.
    var root: Unmanaged<RootAnalyzer>? {
        unowned(unsafe) var current = self
        while let parent = current.parent { current = parent }
        return current.rootAnalyzer
    }

    /// The node's path as tasks see it (`/notes/new`; the root's is empty), from the names
    /// it and its ancestors were registered with.
    var path: String {
        var names: [String] = []
        var current: NodeRegistration? = self
        while let registration = current, let parent = registration.parent {
            names.append(registration.name)
            current = parent
        }
        return names.reversed().map { "/" + $0 }.joined()
    }

    /// Marks the node deregistered (and so its descendants), or, for a binding to a kept
    /// node, the binding released.
    func cancel() {
        isCancelled = true
        Self.cancellations += 1
    }
}

/// A kept node under a record: its record, and the name and index it was registered with.
struct KeptNode {
    let record: NodeRegistration
    let name: String
    let index: Int?
}
