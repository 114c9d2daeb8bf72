import CoreJS

/// One call of the module protocol, as an engine applies it and the recorder writes it
/// (the manager queues operations already encoded; see `OperationEncoder`).
public enum ModuleOperation: Sendable, Equatable {
    /// `registerNode(id, parentID, name, index, namespace, attributes)`. Boxed (`indirect`):
    /// registrations are rarer than events, and in an array of operations (a replay, the
    /// debug backlog) each is as large as the largest case.
    indirect case register(id: NodeID, parent: NodeID?, name: String, index: Int?, namespace: String?, attributes: JSONValue?)
    /// `recordEvent(name, properties, nodeID)`.
    case event(id: NodeID, name: String, properties: JSONValue)
    /// `deregisterNodes(id)`.
    case deregister(id: NodeID)

    /// What the operation does, as error messages name it.
    public var summary: String {
        switch self {
        case let .register(id, _, name, _, _, _): return "registering node \(id) '\(name)'"
        case let .event(id, name, _): return "recording '\(name)' on node \(id)"
        case let .deregister(id): return "deregistering node \(id)"
        }
    }
}
