import CoreJS

/// One call of the module protocol, as the manager queues it and the recorder writes it.
public enum ModuleOperation: Sendable, Equatable {
    /// `registerNode(id, parentID, name, index, namespace, attributes)`.
    case register(id: NodeID, parent: NodeID?, name: String, index: Int?, namespace: String?, attributes: JSONValue?)
    /// `recordEvent(name, properties, nodeID)`.
    case event(id: NodeID, name: String, properties: JSONValue)
    /// `deregisterNodes(id)`.
    case deregister(id: NodeID)

    /// Sends the operation to an engine.
    public func apply(to engine: AnalyticsEngine) throws {
        switch self {
        case let .register(id, parent, name, index, namespace, attributes):
            try engine.registerNode(
                id: id, parent: parent, name: name, index: index, namespace: namespace, attributes: attributes)
        case let .event(id, name, properties):
            try engine.recordEvent(name: name, properties: properties, nodeID: id)
        case let .deregister(id):
            try engine.deregisterNodes(id: id)
        }
    }
}
