// Registration and binding: when an analyzer registers its node (as soon as its parent
// chain allows), which node it binds to (its own, a keyed one, or a kept one that belongs
// to a position), and what it sends then (the events that waited, waiting sub-analyzers).
import CoreJS
import DequeModule

extension Analyzer {
    /// Enables the analyzer and adds the owner's sub-analyzables.
    func activate() {
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

    func add(_ subAnalyzable: SubAnalyzable?, for key: String) {
        switch subAnalyzable {
        case let .one(sub)?: setSubAnalyzer(sub.analyzer, for: key, index: nil)
        case let .many(subs)?: setSubAnalyzers(subs.map(\.analyzer), for: key)
        case nil: break
        }
    }

    func attach(under parent: Analyzer, key: String, index: Int?, position: [NodeKey]?) {
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
    var liveRegistration: NodeRegistration? {
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

    /// Registers the node if the parent chain allows; `true` when registered. (What
    /// ``register()`` does for every analyzer but the root.)
    func registerUnderParent() -> Bool {
        if let registration = unretainedRegistration, registration._withUnsafeGuaranteedRef({ $0.isLive }) { return true }
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
    func unregister() {
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

    static func keyedSlot(_ key: String, _ index: Int?) -> [NodeKey] {
        [.name(key)] + (index.map { [.index($0)] } ?? [])
    }
}

/// A sub-analyzer waiting for its parent, held weakly.
struct WeakAnalyzer {
    weak var analyzer: Analyzer?
    init(_ analyzer: Analyzer) { self.analyzer = analyzer }
}

/// An event recorded before the node registered, sent once it does.
struct PendingEvent {
    let name: String
    let properties: EventProperties
    let time: Double
}
