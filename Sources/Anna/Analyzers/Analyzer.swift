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
    /// The name given with ``enable(naming:)``, kept when a container attaches the analyzer.
    private var ownName: String?
    /// Where the node sits below the parent's when a container attached it at a position
    /// (a row): the node is then kept for the position, not for this analyzer.
    private var position: [NodeKey]?
    /// Whether a lookup waits for the main actor (a redirect that belongs to it).
    private var mainActorLookupScheduled = false
    var enabled = false
    private var enabledSequence = 0
    private weak var superAnalyzer: Analyzer?
    private var keyedSubAnalyzers: [[NodeKey]: Analyzer] = [:]

    /// The node's registration; see ``liveRegistration``.
    private var registration: NodeRegistration?
    /// The registration an ancestor's deregistration ended while this analyzer stayed: the
    /// core keeps the node detached, with its values, for this analyzer to take back when it
    /// registers again (with the same ID: it moves there); a new ID, or ``unregister()``,
    /// drops it. See ``settleDetachedNode(becoming:)``.
    private var detachedRegistration: NodeRegistration?
    /// Whether debug mode was told that the node moved (once per analyzer).
    private var moveReported = false
    /// The analyzer whose node is the parent of this one's, while registered.
    private weak var parentAnalyzer: Analyzer?
    private var pendingEvents = Deque<PendingEvent>()
    /// Whether waiting events were reported (see ``DebugManagers``), once per analyzer.
    private var waitingReported = false
    /// Sub-analyzers that could not register before this one did; they register after it.
    private var waitingSubAnalyzers: [WeakAnalyzer] = []
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
        record(StandardEvent.updated, .update(keyPath: keyPath, value: value?.jsonValue))
    }

    private func record(_ event: String, _ properties: EventProperties) {
        Self.lock.withLock {
            let time = Manager.now()
            if register(), let registration {
                registration.sendEvent(name: event, properties: properties, time: time)
            } else {
                if pendingEvents.isEmpty, !waitingReported { DebugManagers.watchWaitingEvents(of: self) }
                if pendingEvents.count >= Self.pendingEventLimit { pendingEvents.removeFirst() }
                pendingEvents.append(PendingEvent(name: event, properties: properties, time: time))
            }
        }
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
                add(object.subAnalyzable(for: key), for: key)
            }
        } else if let object = owner as? any MainActorAnalyzableObject {
            addMainActorSubAnalyzables(of: object)
        }
        _ = register()
    }

    private func add(_ subAnalyzable: SubAnalyzable?, for key: String) {
        switch subAnalyzable {
        case let .one(sub)?: setSubAnalyzer(sub.analyzer, for: key, index: nil)
        case let .many(subs)?: setSubAnalyzers(subs.map(\.analyzer), for: key)
        case nil: break
        }
    }

    /// Adds the sub-analyzables of a main-actor owner: now when on the main thread (where
    /// kit objects enable their analyzers), else as soon as the main actor runs.
    private func addMainActorSubAnalyzables(of object: any MainActorAnalyzableObject) {
        let owner = UncheckedSendable(object)
        let subs = onMainActor { () -> [(String, SubAnalyzable?)] in
            type(of: owner.value).subAnalyzableKeys.sorted().map { ($0, owner.value.subAnalyzable(for: $0)) }
        }
        if let subs {
            for (key, sub) in subs { add(sub, for: key) }
            return
        }
        let reference = UncheckedSendable(self)
        DispatchQueue.main.async {
            Self.lock.withLock {
                let analyzer = reference.value
                guard analyzer.enabled, let object = analyzer.owner as? any MainActorAnalyzableObject else { return }
                analyzer.addMainActorSubAnalyzables(of: object)
            }
        }
    }

    /// What a redirecting object answers for `another`, asked on the main actor when the
    /// object belongs to it.
    private func redirection(at object: any FocusPathConstituting, for another: any FocusPathConstituting) -> Redirection {
        if let redirecting = object as? any FocusPathConstitutionRedirecting {
            return redirecting.redirectedConstitutor(for: another).map(Redirection.to) ?? .none
        }
        guard let redirecting = object as? any MainActorFocusPathConstitutionRedirecting else { return .none }
        let question = UncheckedSendable((redirecting, another))
        guard let answer = onMainActor({ question.value.0.redirectedConstitutor(for: question.value.1) }) else {
            return .waitForMainActor
        }
        return answer.map(Redirection.to) ?? .none
    }

    /// Looks the parent up again on the main actor (a redirect there must answer), then
    /// sends the events that wait.
    private func scheduleMainActorLookup() {
        guard !mainActorLookupScheduled else { return }
        mainActorLookupScheduled = true
        let reference = UncheckedSendable(self)
        DispatchQueue.main.async {
            Self.lock.withLock {
                reference.value.mainActorLookupScheduled = false
                _ = reference.value.register()
            }
        }
    }

    private func attach(under parent: Analyzer, key: String, index: Int?, position: [NodeKey]?) {
        if nodeID != nil, superAnalyzer !== parent || name != key || self.index != index || self.position != position {
            unregister()
        }
        superAnalyzer = parent
        name = key
        self.index = index
        self.position = position
        activate()
    }

    /// The node's ID while registered.
    var nodeID: NodeID? { liveRegistration?.id }

    /// The registration, unless it or an ancestor's was cancelled since; then it is
    /// forgotten (the core removed the node with that ancestor).
    private var liveRegistration: NodeRegistration? {
        if let registration, !registration.isLive {
            // A kept node belongs to its position: its parent's analyzer drops it.
            if registration.kept == nil { detachedRegistration = registration }
            forgetRegistration()
        }
        return registration
    }

    /// Before registering as `id`: drops the detached node (see ``detachedRegistration``)
    /// unless `id` is its ID; then the core takes it back, and the detached registration is
    /// returned (to say where the node was).
    private func settleDetachedNode(becoming id: NodeID) -> NodeRegistration? {
        guard let detached = detachedRegistration else { return nil }
        detachedRegistration = nil
        if detached.id == id { return detached }
        detached.manager.send(.deregister(id: detached.id))
        return nil
    }

    /// In debug mode, says once per analyzer that its node moved to another parent than the
    /// one `detached` had (a node that follows its parent, the same parent's node registered
    /// again, is not said to move).
    private func reportMove(from detached: NodeRegistration?) {
        guard let detached, !moveReported, let registration, detached.parent?.id != registration.parent?.id,
            registration.manager.dependency.debug
        else { return }
        let moved = NodeMove(id: registration.id, from: detached.path, to: registration.path)
        moveReported = true
        registration.manager.report(moved)
    }

    /// Registers the node if the parent chain allows; `true` when registered.
    func register() -> Bool {
        if liveRegistration != nil { return true }
        guard enabled, let name, let parent = superAnalyzer ?? parentByLookingUp() else { return false }
        guard parent.register(), let parentRegistration = parent.registration else {
            // A sub-analyzer registers as soon as its parent does (a view added to a cell
            // that waits for its row), so what it recorded meanwhile is not held back.
            if parent === superAnalyzer, !parent.waitingSubAnalyzers.contains(where: { $0.analyzer === self }) {
                parent.waitingSubAnalyzers.append(WeakAnalyzer(self))
            }
            return false
        }
        // Registering the parent may have registered this one (it waited for the parent).
        if liveRegistration != nil { return true }
        let parentID = parentRegistration.id
        if let position {
            bindKeptNode(id: NodeID(owner: parentID.owner, keys: parentID.keys + position), name: name, under: parent)
        } else if isKeyed {
            let id = NodeID(owner: parentID.owner, keys: parentID.keys + Self.keyedSlot(name, index))
            sendRegistration(id: id, name: name, under: parent, manager: parentRegistration.manager)
        } else if superAnalyzer != nil, !parentID.keys.isEmpty {
            // A sub-analyzer of a keyed node (a view in a row) is kept by its key path, as
            // the reference does: a view made anew for the row takes over its node.
            bindKeptNode(id: NodeID(owner: parentID.owner, keys: parentID.keys + Self.keyedSlot(name, index)), name: name, under: parent)
        } else {
            sendRegistration(id: NodeID(number), name: name, under: parent, manager: parentRegistration.manager)
        }
        return true
    }

    /// Binds the analyzer to the kept node `id` under `parent`'s node, registering the node
    /// first unless the parent's record still keeps it under the same name and index.
    private func bindKeptNode(id: NodeID, name: String, under parent: Analyzer) {
        guard let parentRegistration = parent.registration else { return }
        let manager = parentRegistration.manager
        let parentRecord = parentRegistration.record
        let detached = settleDetachedNode(becoming: id)
        let record: NodeRegistration
        if let node = parentRecord.keptChildren[id], node.record.isLive, node.name == name, node.index == index {
            record = node.record
        } else {
            if let stale = parentRecord.keptChildren[id], stale.record.isLive {
                stale.record.cancel()
                manager.send(.deregister(id: id))
            }
            manager.send(.register(id: id, parent: parentRegistration.id, name: name, index: index, namespace: namespace, attributes: nil))
            record = NodeRegistration(id: id, name: name, manager: manager, parent: parentRecord)
            parentRecord.keptChildren[id] = KeptNode(record: record, name: name, index: index)
        }
        registration = NodeRegistration(id: id, name: name, manager: manager, parent: parentRegistration, kept: record)
        parentAnalyzer = parent
        reportMove(from: detached)
        sendPendingEvents(to: id, manager: manager)
    }

    /// Registers the node as `id` under `parent`'s (none for the root) and sends the events
    /// that waited for it.
    ///
    /// When an ancestor's deregistration had detached the node (the analyzer stayed), the core
    /// takes it back here, moved, with its values, visibility and kept events.
    func sendRegistration(id: NodeID, name: String, under parent: Analyzer?, manager: Manager) {
        let detached = settleDetachedNode(becoming: id)
        manager.send(.register(id: id, parent: parent?.registration?.id, name: name, index: index, namespace: namespace, attributes: nil))
        registration = NodeRegistration(id: id, name: name, manager: manager, parent: parent?.registration)
        parentAnalyzer = parent
        reportMove(from: detached)
        sendPendingEvents(to: id, manager: manager)
    }

    private func sendPendingEvents(to id: NodeID, manager: Manager) {
        let events = pendingEvents
        pendingEvents.removeAll()
        for event in events {
            manager.sendEvent(id: id, name: event.name, properties: event.properties, time: event.time)
        }
        guard !waitingSubAnalyzers.isEmpty else { return }
        let waiting = waitingSubAnalyzers
        waitingSubAnalyzers.removeAll()
        for sub in waiting {
            if let analyzer = sub.analyzer, analyzer.superAnalyzer === self { _ = analyzer.register() }
        }
    }

    /// Deregisters the node; the core removes the descendants, and cancelling the
    /// registration makes them forget theirs. A kept node stays: only this analyzer's
    /// binding to it is released.
    private func unregister() {
        if let registration = liveRegistration {
            registration.cancel()
            if registration.kept == nil { registration.manager.send(.deregister(id: registration.id)) }
            forgetRegistration()
        }
        if let detached = detachedRegistration {
            detachedRegistration = nil
            detached.manager.send(.deregister(id: detached.id))
        }
    }

    private func forgetRegistration() {
        registration = nil
        parentAnalyzer = nil
    }

    /// The nearest enabled analyzer up the owner's chain, or the focused analyzer standing
    /// below it (when focus came before this analyzer was enabled).
    private func parentByLookingUp() -> Analyzer? {
        var visited = 0
        // `asker` is the object whose parent constitutor led to `current`: a redirect may
        // answer differently for different askers (a tab container for its own tabs).
        var asker: (any FocusPathConstituting)? = owner
        var current = owner?.parentConstitutor()
        var found: Analyzer?
        while let object = current, let another = asker, visited < 10_000 {
            visited += 1
            switch redirection(at: object, for: another) {
            case .waitForMainActor:
                scheduleMainActorLookup()
                return nil
            case let .to(redirected) where redirected !== object:
                current = redirected
                continue
            case .to, .none:
                break
            }
            if let analyzer = (object as? any Analyzable)?.analyzer as? Analyzer, analyzer !== self, analyzer.enabled {
                found = analyzer
                break
            }
            asker = object
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

/// A sub-analyzer waiting for its parent, held weakly.
private struct WeakAnalyzer {
    weak var analyzer: Analyzer?
    init(_ analyzer: Analyzer) { self.analyzer = analyzer }
}

/// What a redirecting object answered during a parent lookup.
private enum Redirection {
    /// Continue at this object.
    case to(any FocusPathConstituting)
    /// No redirection.
    case none
    /// The object belongs to the main actor and the lookup runs elsewhere: ask it there.
    case waitForMainActor
}

/// Runs `body` on the main actor when called there (on the main queue, whichever thread
/// drains it); `nil` elsewhere.
func onMainActor<T>(_ body: @MainActor () -> T) -> T? {
    guard MainQueueMark.isCurrent else { return nil }
    return MainActor.assumeIsolated { UncheckedSendable(body()) }.value
}

/// Tells whether the caller runs on the main queue, the main actor's executor. (On Linux
/// the main actor's jobs may run on a thread that is not the process's main thread, so
/// `Thread.isMainThread` cannot tell.)
enum MainQueueMark {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}

/// A value handed across isolation where the analyzers' lock (or the main actor) guards it.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

private struct PendingEvent {
    let name: String
    let properties: EventProperties
    let time: Double
}
