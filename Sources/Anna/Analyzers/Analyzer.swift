import CoreJS
import DequeModule
import Foundation
import Synchronization

/// The analyzer of one host object: a named node in the focus-path tree.
///
/// Its node's parent is, in order: the analyzer that added it as a sub-analyzer; else the
/// focused analyzer, if it was focused before this one was enabled and the responder-chain
/// parent is that analyzer or one of its ancestors; else the nearest enabled analyzer up the
/// owner's chain of ``FocusPathConstituting/parentConstitutor()``.
///
/// Analyzers register their node lazily: as soon as the parent chain up to a
/// ``RootAnalyzer`` is known, at the latest when an event is recorded. Events recorded before
/// are kept and sent in order afterwards.
///
/// All analyzers share one lock, so they can be used from any thread.
public class Analyzer: Analyzing, @unchecked Sendable {
    /// Guards the state of every analyzer (their trees are linked across objects).
    static let lock = NSRecursiveLock()
    private static let counter = Atomic<Int>(0)

    static func nextNumber() -> Int {
        counter.add(1, ordering: .relaxed).newValue
    }

    /// The object this analyzer belongs to.
    public private(set) weak var owner: (any FocusPathConstituting)?
    /// The namespace sent with the node: the owner's type name (loads `task/<Type>.js`).
    public let namespace: String?
    let number: Int
    let isKeyed: Bool

    var name: String?
    var index: Int?
    /// The name given with ``enable(naming:)``, kept when a container attaches the analyzer.
    private var ownName: String?
    /// Where the node sits below the parent's when a container attached it at a position
    /// (a row): the node is then kept for the position, not for this analyzer.
    var position: [NodeKey]?
    /// Whether a lookup waits for the main actor (a redirect that belongs to it).
    var mainActorLookupScheduled = false
    var enabled = false
    var enabledSequence = 0
    weak var superAnalyzer: Analyzer?
    private var keyedSubAnalyzers: [[NodeKey]: Analyzer] = [:]

    /// The node's registration; see ``liveRegistration``.
    var registration: NodeRegistration? {
        didSet { unretainedRegistration = registration.map(Unmanaged.passUnretained) }
    }
    /// ``registration`` for the per-event path, which uses it under the lock without
    /// retaining it (``registration`` keeps it).
    private(set) var unretainedRegistration: Unmanaged<NodeRegistration>?
    /// The registration an ancestor's deregistration ended while this analyzer stayed: the
    /// core keeps the node detached, with its values, for this analyzer to take back when it
    /// registers again (with the same ID: it moves there); a new ID, or ``unregister()``,
    /// drops it. See ``settleDetachedNode(becoming:)``.
    var detachedRegistration: NodeRegistration?
    /// Whether debug mode was told that the node moved (once per analyzer).
    var moveReported = false
    /// The analyzer whose node is the parent of this one's, while registered.
    weak var parentAnalyzer: Analyzer?
    var pendingEvents = Deque<PendingEvent>()
    /// Whether waiting events were reported (see ``DebugManagers``), once per analyzer.
    private var waitingReported = false
    /// Sub-analyzers that could not register before this one did; they register after it.
    var waitingSubAnalyzers: [WeakAnalyzer] = []
    private var observationCancellers: [(keyPath: String, cancel: @Sendable () -> Void)] = []

    /// Creates the analyzer of `owner` (keep it in the owner, e.g. in a `lazy var`).
    public init(owner: any FocusPathConstituting) {
        self.owner = owner
        namespace = String(describing: type(of: owner))
        number = Self.nextNumber()
        isKeyed = false
    }

    /// Creates the analyzer of `owner` with its own namespace (the task file its node loads,
    /// `task/<namespace>.js`), for owners whose Swift type does not name them: a toolkit's
    /// widget wrapper names the widget's class, say.
    public init(owner: any FocusPathConstituting, namespace: String) {
        self.owner = owner
        self.namespace = namespace
        number = Self.nextNumber()
        isKeyed = false
    }

    /// Creates an analyzer whose owner is given later, with ``adopt(owner:)``: for an owner
    /// that keeps its analyzer in a constant, so cannot hand over `self` before it exists.
    package init(namespace: String) {
        owner = nil
        self.namespace = namespace
        number = Self.nextNumber()
        isKeyed = false
    }

    /// Sets the owner of an analyzer made with ``init(namespace:)``.
    package func adopt(owner: any FocusPathConstituting) {
        Self.lock.withLock { self.owner = owner }
    }

    init(keyedUnder owner: (any FocusPathConstituting)?) {
        self.owner = owner
        namespace = nil
        number = Self.nextNumber()
        isKeyed = true
    }

    init(rootNamed name: String) {
        owner = nil
        namespace = nil
        number = Self.nextNumber()
        isKeyed = false
        self.name = name
        enabled = true
    }

    /// The reference library's factory: `Analyzer.analyzer(with: self)`.
    public class func analyzer(with owner: any FocusPathConstituting) -> Analyzer {
        Analyzer(owner: owner)
    }

    deinit {
        detach()
    }

    /// The most events kept for a node that is not registered yet; older ones are dropped
    /// first, so an analyzer that never finds its parent cannot grow without bound.
    public static let pendingEventLimit = 1_000

    /// Whether the analyzer is enabled (named, or added as a sub-analyzer) and not detached since.
    public var isEnabled: Bool {
        Self.lock.withLock { enabled }
    }

    /// The node's ID once registered (for tools and tests).
    public var registeredNodeID: NodeID? {
        Self.lock.withLock { nodeID }
    }

    // MARK: - Analyzing

    /// The name given with ``enable(naming:)``, if any: a container that attaches the
    /// analyzer at a position (a table's row) names the node with it.
    public var enabledName: String? {
        Self.lock.withLock { ownName }
    }

    /// Enables the analyzer with a standalone name (see ``Analyzing/enable(naming:)``).
    ///
    /// An analyzer that a container attached at a position (a table's cell at its row) keeps
    /// its position and index and takes the name, as the reference's cells do when they name
    /// themselves in `cellForRowAt`.
    public func enable(naming name: String) {
        Self.lock.withLock {
            ownName = name
            if position != nil, superAnalyzer != nil {
                if self.name != name { unregister() }
                self.name = name
                activate()
                return
            }
            if nodeID != nil, superAnalyzer != nil || self.name != name { unregister() }
            superAnalyzer = nil
            self.name = name
            index = nil
            activate()
        }
    }

    /// Makes `sub` the child named `key` (see ``Analyzing/setSubAnalyzer(_:for:)``).
    public func setSubAnalyzer(_ sub: any Analyzing, for key: String) {
        setSubAnalyzer(sub, for: key, index: nil)
    }

    /// Makes each of `subs` a child named `key` with its index.
    public func setSubAnalyzers(_ subs: [any Analyzing], for key: String) {
        Self.lock.withLock {
            for (index, sub) in subs.enumerated() { setSubAnalyzer(sub, for: key, index: index) }
        }
    }

    /// Makes `sub` the child named `key` at `index`. Moving an already attached sub (a reused
    /// cell shown at another row) deregisters its old node first.
    public func setSubAnalyzer(_ sub: any Analyzing, for key: String, index: Int?) {
        guard let sub = sub as? Analyzer, sub !== self else { return }
        Self.lock.withLock { sub.attach(under: self, key: key, index: index, position: nil) }
    }

    /// Makes `sub` the child named `key` at `index` whose node belongs to `position` below
    /// this analyzer's node rather than to `sub` (a table's row: `[section, row]`).
    ///
    /// The node's ID is this node's ID followed by `position`. It is *kept*: when `sub` moves
    /// elsewhere or goes away, the node stays with its values, and the next analyzer attached
    /// at the same position (the cell reused for the row) takes it over. The sub-analyzers of
    /// a kept node are kept the same way, by their keys. ``removePositionNodes(under:)``
    /// deregisters kept nodes. Sub-analyzers added with ``setSubAnalyzer(_:for:index:)``
    /// under any keyed node are kept too.
    public func setSubAnalyzer(_ sub: any Analyzing, for key: String, index: Int?, at position: [NodeKey]) {
        guard let sub = sub as? Analyzer, sub !== self else { return }
        Self.lock.withLock { sub.attach(under: self, key: key, index: index, position: position) }
    }

    /// Deregisters the kept nodes at the positions that start with `prefix` below this
    /// analyzer's node (e.g. `[section]`: the rows of a reloaded section), and their
    /// descendants. Analyzers bound to them register again when next attached.
    /// - Precondition: `prefix` is not empty.
    public func removePositionNodes(under prefix: [NodeKey]) {
        precondition(!prefix.isEmpty, "A position prefix names at least one key.")
        Self.lock.withLock {
            guard let registration = liveRegistration else {
                // Detached (an ancestor went): the core keeps the kept nodes detached too.
                if let detached = detachedRegistration {
                    detached.manager.send(.deregister(id: NodeID(owner: detached.id.owner, keys: detached.id.keys + prefix)))
                }
                return
            }
            let record = registration.record
            let removed = NodeID(owner: registration.id.owner, keys: registration.id.keys + prefix)
            for (id, node) in record.keptChildren where id.owner == removed.owner && id.keys.starts(with: removed.keys) {
                node.record.cancel()
                record.keptChildren[id] = nil
            }
            registration.manager.send(.deregister(id: removed))
        }
    }

    /// A sub-analyzer without an object of its own (e.g. a table section): its node has the
    /// keyed ID `[owner, …, key, index]`. The same key and index give the same analyzer.
    public func keyedSubAnalyzer(for key: String, index: Int?) -> Analyzer {
        Self.lock.withLock {
            let slot = Self.keyedSlot(key, index)
            if let existing = keyedSubAnalyzers[slot] { return existing }
            let sub = Analyzer(keyedUnder: owner)
            keyedSubAnalyzers[slot] = sub
            sub.attach(under: self, key: key, index: index, position: nil)
            return sub
        }
    }

    /// Deregisters the node and leaves the parent, key and index the analyzer was attached
    /// under, keeping its observations (a cell waiting in a reuse pool): it registers again,
    /// and sends what it recorded meanwhile, once attached under a parent again. A kept node
    /// (see ``setSubAnalyzer(_:for:index:at:)``) stays registered for its position.
    public func removeFromParent() {
        Self.lock.withLock {
            unregister()
            superAnalyzer = nil
            name = nil
            index = nil
            position = nil
        }
    }

    /// Detaches and forgets the keyed sub-analyzer for `key` and `index` (e.g. a section
    /// that a reload removed); its node and descendants are deregistered.
    public func removeKeyedSubAnalyzer(for key: String, index: Int? = nil) {
        Self.lock.withLock {
            keyedSubAnalyzers.removeValue(forKey: Self.keyedSlot(key, index))?.detach()
        }
    }

    /// Records an event with attributes (keys sorted, for a stable order).
    public func record(_ event: String, with attributes: [String: JSONValue]?) {
        record(event, .attributes(attributes ?? [:]))
    }

    /// Records an event with properties in the order given.
    public func record(_ event: String, properties: JSONValue) {
        record(event, .value(properties))
    }

    /// Records `ana-updated` with `key-path` and (unless `nil`) `value`.
    public func update(_ value: (any JSONValueConvertible)?, for keyPath: String) {
        record(StandardEvent.updated, .update(keyPath: keyPath, value: value?.jsonValue))
    }

    /// Records `event` with `attributes` and marks this analyzer focused, in one hold of the
    /// lock: what a toolkit's capture does for a click or a row's activation.
    package func recordFocusing(_ event: String, with attributes: [String: JSONValue]?) {
        Self.lock.withLock {
            if recordLocked(event, .attributes(attributes ?? [:])) { focusRegistered() }
        }
    }

    private func record(_ event: String, _ properties: EventProperties) {
        Self.lock.withLock { _ = recordLocked(event, properties) }
    }

    /// Sends the event, or keeps it until the node registers; `true` when it was sent.
    private func recordLocked(_ event: String, _ properties: EventProperties) -> Bool {
        let time = Manager.now()
        if register(), let registration = unretainedRegistration {
            registration._withUnsafeGuaranteedRef { $0.sendEvent(name: event, properties: properties, time: time) }
            return true
        }
        if pendingEvents.isEmpty, !waitingReported { DebugManagers.watchWaitingEvents(of: self) }
        if pendingEvents.count >= Self.pendingEventLimit { pendingEvents.removeFirst() }
        pendingEvents.append(PendingEvent(name: event, properties: properties, time: time))
        return false
    }

    /// Records `ana-updated` with the value of `observee` on every change and, unless
    /// `initial` is `false`, with its current value now (see
    /// ``Analyzing/observe(_:for:initial:)``).
    public func observe<Value>(_ observee: ObservableValue<Value>, for keyPath: String, initial: Bool) {
        // Under the lock, so a concurrent detach() sees the observation and a change made
        // meanwhile is recorded after the initial value.
        Self.lock.withLock {
            // The observer records the value current when it holds the lock, not the one it was
            // handed: notifications of concurrent sets may arrive in either order, and the last
            // one must record the last value.
            let token = observee.addObserver { [weak self, weak observee] _ in
                guard let self, let observee else { return }
                Self.lock.withLock { self.update(observee.value, for: keyPath) }
            }
            observationCancellers.append((keyPath, { observee.removeObserver(token) }))
            if initial { update(observee.value, for: keyPath) }
        }
    }

    /// Stops the observations made for `keyPath`.
    public func stopObserving(for keyPath: String) {
        Self.lock.withLock {
            for observation in observationCancellers where observation.keyPath == keyPath { observation.cancel() }
            observationCancellers.removeAll { $0.keyPath == keyPath }
        }
    }

    /// Stops observing, deregisters the node and its descendants, and drops events still
    /// waiting for registration. Called on deinit.
    public func detach() {
        Self.lock.withLock {
            for observation in observationCancellers { observation.cancel() }
            observationCancellers.removeAll()
            pendingEvents.removeAll()
            unregister()
            enabled = false
        }
    }

    /// Marks this analyzer focused (see ``Analyzing/markFocused()``).
    public func markFocused() {
        Self.lock.withLock { focusLocked() }
    }

    /// Registers the node if it can, and makes it the root's focused analyzer.
    private func focusLocked() {
        if register() { focusRegistered() }
    }

    /// Makes this registered analyzer the root's focused one. The root is reached through the
    /// registrations without retaining it (a root's reference count takes the slow path: its
    /// children refer to it weakly), since every click asks.
    private func focusRegistered() {
        guard let root = unretainedRegistration?._withUnsafeGuaranteedRef({ $0.root }) else { return }
        root._withUnsafeGuaranteedRef { $0.focus(on: self) }
    }

    /// Registers the node if the parent chain allows; `true` when registered. The root
    /// overrides it (it has no parent); the others register under their parent (see
    /// `Analyzer+Registration.swift`).
    func register() -> Bool {
        registerUnderParent()
    }

    /// When events still wait for a parent: what to report (the owner's type, the type
    /// names its chain walked, how many events wait), once; else `nil`.
    func waitingEventsReport() -> AnalyticsError? {
        Self.lock.withLock {
            guard !pendingEvents.isEmpty, !waitingReported, !register() else { return nil }
            waitingReported = true
            var chain: [String] = []
            var current = owner?.parentConstitutor()
            while let object = current, chain.count < 50 {
                chain.append(String(describing: type(of: object)))
                current = object.parentConstitutor()
            }
            let ownerType = owner.map { String(describing: type(of: $0)) } ?? "released object"
            return .eventsWaiting(owner: ownerType, chain: chain, events: pendingEvents.count)
        }
    }
}

extension Analyzer: FocusPathConstituting {
    /// An analyzer stands for its owner in focus paths.
    public func parentConstitutor() -> (any FocusPathConstituting)? {
        owner?.parentConstitutor()
    }
}
