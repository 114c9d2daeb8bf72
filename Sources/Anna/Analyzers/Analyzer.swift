// One file on purpose: the public API and the tree logic below share the analyzer's private
// state, guarded by one lock; split, that state would have to be visible to the whole module.
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
    private let isKeyed: Bool

    var name: String?
    var index: Int?
    var enabled = false
    private var enabledSequence = 0
    private weak var superAnalyzer: Analyzer?
    private var keyedSubAnalyzers: [[NodeKey]: Analyzer] = [:]

    /// The node's registration; see ``liveRegistration``.
    private var registration: NodeRegistration?
    /// The analyzer whose node is the parent of this one's, while registered.
    private weak var parentAnalyzer: Analyzer?
    private var pendingEvents = Deque<PendingEvent>()
    /// Whether waiting events were reported (see ``DebugManagers``), once per analyzer.
    private var waitingReported = false
    private var observationCancellers: [(keyPath: String, cancel: @Sendable () -> Void)] = []

    /// Creates the analyzer of `owner` (keep it in the owner, e.g. in a `lazy var`).
    public init(owner: any FocusPathConstituting) {
        self.owner = owner
        namespace = String(describing: type(of: owner))
        number = Self.nextNumber()
        isKeyed = false
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

    /// Enables the analyzer with a standalone name (see ``Analyzing/enable(naming:)``).
    public func enable(naming name: String) {
        Self.lock.withLock {
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
        Self.lock.withLock { sub.attach(under: self, key: key, index: index) }
    }

    /// A sub-analyzer without an object of its own (e.g. a table section): its node has the
    /// keyed ID `[owner, …, key, index]`. The same key and index give the same analyzer.
    public func keyedSubAnalyzer(for key: String, index: Int? = nil) -> Analyzer {
        Self.lock.withLock {
            let slot = Self.keyedSlot(key, index)
            if let existing = keyedSubAnalyzers[slot] { return existing }
            let sub = Analyzer(keyedUnder: owner)
            keyedSubAnalyzers[slot] = sub
            sub.attach(under: self, key: key, index: index)
            return sub
        }
    }

    /// Deregisters the node and leaves the parent, key and index the analyzer was attached
    /// under, keeping its observations (a cell waiting in a reuse pool): it registers again,
    /// and sends what it recorded meanwhile, once attached under a parent again.
    public func removeFromParent() {
        Self.lock.withLock {
            unregister()
            superAnalyzer = nil
            name = nil
            index = nil
        }
    }

    /// Detaches and forgets the keyed sub-analyzer for `key` and `index` (e.g. a section
    /// that a reload removed); its node and descendants are deregistered.
    public func removeKeyedSubAnalyzer(for key: String, index: Int? = nil) {
        Self.lock.withLock {
            keyedSubAnalyzers.removeValue(forKey: Self.keyedSlot(key, index))?.detach()
        }
    }

    private static func keyedSlot(_ key: String, _ index: Int?) -> [NodeKey] {
        [.name(key)] + (index.map { [.index($0)] } ?? [])
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
        record("ana-updated", .update(keyPath: keyPath, value: value?.jsonValue))
    }

    private func record(_ event: String, _ properties: EventProperties) {
        Self.lock.withLock {
            let time = Manager.now()
            if register(), let registration {
                registration.manager.sendEvent(id: registration.id, name: event, properties: properties, time: time)
            } else {
                if pendingEvents.isEmpty, !waitingReported { DebugManagers.watchWaitingEvents(of: self) }
                if pendingEvents.count >= Self.pendingEventLimit { pendingEvents.removeFirst() }
                pendingEvents.append(PendingEvent(name: event, properties: properties, time: time))
            }
        }
    }

    /// Records the current value of `observee` now and `ana-updated` on every later change.
    public func observe<Value>(_ observee: ObservableValue<Value>, for keyPath: String) {
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
            update(observee.value, for: keyPath)
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
        Self.lock.withLock {
            _ = register()
            rootAnalyzer?.focus(on: self)
        }
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

    // MARK: - Tree

    /// Enables the analyzer and adds the owner's sub-analyzables.
    private func activate() {
        enabled = true
        enabledSequence = RootAnalyzer.nextSequence()
        if let object = owner as? any AnalyzableObject {
            for key in type(of: object).subAnalyzableKeys.sorted() {
                switch object.subAnalyzable(for: key) {
                case let .one(sub)?: setSubAnalyzer(sub.analyzer, for: key, index: nil)
                case let .many(subs)?: setSubAnalyzers(subs.map(\.analyzer), for: key)
                case nil: continue
                }
            }
        }
        _ = register()
    }

    private func attach(under parent: Analyzer, key: String, index: Int?) {
        if nodeID != nil, superAnalyzer !== parent || name != key || self.index != index { unregister() }
        superAnalyzer = parent
        name = key
        self.index = index
        activate()
    }

    /// The node's ID while registered.
    var nodeID: NodeID? { liveRegistration?.id }

    /// The registration, unless it or an ancestor's was cancelled since; then it is
    /// forgotten (the core removed the node with that ancestor).
    private var liveRegistration: NodeRegistration? {
        if let registration, !registration.isLive { forgetRegistration() }
        return registration
    }

    /// Registers the node if the parent chain allows; `true` when registered.
    func register() -> Bool {
        if liveRegistration != nil { return true }
        guard enabled, let name, let parent = superAnalyzer ?? parentByLookingUp(),
            parent.register(), let parentRegistration = parent.registration
        else { return false }
        let id: NodeID
        if isKeyed {
            id = NodeID(owner: parentRegistration.id.owner, keys: parentRegistration.id.keys + Self.keyedSlot(name, index))
        } else {
            id = NodeID(number)
        }
        sendRegistration(id: id, name: name, under: parent, manager: parentRegistration.manager)
        return true
    }

    /// Registers the node as `id` under `parent`'s (none for the root) and sends the events
    /// that waited for it.
    func sendRegistration(id: NodeID, name: String, under parent: Analyzer?, manager: Manager) {
        manager.send(.register(id: id, parent: parent?.registration?.id, name: name, index: index, namespace: namespace, attributes: nil))
        registration = NodeRegistration(id: id, manager: manager, parent: parent?.registration)
        parentAnalyzer = parent
        let events = pendingEvents
        pendingEvents.removeAll()
        for event in events {
            manager.sendEvent(id: id, name: event.name, properties: event.properties, time: event.time)
        }
    }

    /// Deregisters the node; the core removes the descendants, and cancelling the
    /// registration makes them forget theirs.
    private func unregister() {
        guard let registration = liveRegistration else { return }
        registration.cancel()
        registration.manager.send(.deregister(id: registration.id))
        forgetRegistration()
    }

    private func forgetRegistration() {
        registration = nil
        parentAnalyzer = nil
    }

    /// The nearest enabled analyzer up the owner's chain, or the focused analyzer standing
    /// below it (when focus came before this analyzer was enabled).
    private func parentByLookingUp() -> Analyzer? {
        var visited = 0
        var current = owner?.parentConstitutor()
        var found: Analyzer?
        while let object = current, visited < 10_000 {
            visited += 1
            if let redirecting = object as? any FocusPathConstitutionRedirecting,
                let redirected = redirecting.redirectedConstitutor(), redirected !== object
            {
                current = redirected
                continue
            }
            if let analyzer = (object as? any Analyzable)?.analyzer as? Analyzer, analyzer !== self, analyzer.enabled {
                found = analyzer
                break
            }
            current = object.parentConstitutor()
        }
        guard let found, found.register(), let root = found.rootAnalyzer,
            let focus = root.focusedAnalyzer, root.focusSequence < enabledSequence,
            focus !== self, focus.liveRegistration != nil, focus.isDescendant(of: found), !focus.isDescendant(of: self)
        else { return found }
        return focus
    }

    /// Whether `ancestor` is this analyzer or above it in the registered tree.
    func isDescendant(of ancestor: Analyzer) -> Bool {
        registeredLineage.contains { $0 === ancestor }
    }

    var rootAnalyzer: RootAnalyzer? {
        registeredLineage.lazy.compactMap { $0 as? RootAnalyzer }.first
    }

    /// This analyzer and those above it in the registered tree, nearest first (just this
    /// one when it is not registered). A live registration means every ancestor's is live
    /// too, so the parent links can be followed without checking each.
    private var registeredLineage: UnfoldSequence<Analyzer, (Analyzer?, Bool)> {
        let isRegistered = liveRegistration != nil
        return sequence(first: self) { analyzer in isRegistered ? analyzer.parentAnalyzer : nil }
    }
}

extension Analyzer: FocusPathConstituting {
    /// An analyzer stands for its owner in focus paths.
    public func parentConstitutor() -> (any FocusPathConstituting)? {
        owner?.parentConstitutor()
    }
}

private struct PendingEvent {
    let name: String
    let properties: EventProperties
    let time: Double
}
