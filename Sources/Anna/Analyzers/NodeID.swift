import CoreJS

/// One component of a keyed node ID: a sub-analyzer's key or an index in an array of them.
public enum NodeKey: Hashable, Sendable, CustomStringConvertible {
    /// A key such as `"table"`.
    case name(String)
    /// A position in an array of sub-analyzers.
    case index(Int)

    /// The key as JSON-like data (a string or a number).
    public var jsonValue: JSONValue {
        switch self {
        case let .name(name): return .string(name)
        case let .index(index): return .number(Double(index))
        }
    }

    /// The key as written in IDs: `table` or `3`.
    public var description: String {
        switch self {
        case let .name(name): return name
        case let .index(index): return String(index)
        }
    }
}

/// The ID of a node in the focus-path tree.
///
/// A plain ID is a number (one per analyzed object). A keyed ID, `[owner, key, key, …]`,
/// names a sub-analyzer that has no object of its own; deregistering the owner's number
/// removes all of its keyed IDs too.
public struct NodeID: Hashable, Sendable, CustomStringConvertible {
    /// The owning object's number.
    public var owner: Int
    /// The keys below the owner; empty for a plain ID.
    public var keys: [NodeKey]

    /// A plain ID.
    public init(_ owner: Int) {
        self.owner = owner
        keys = []
    }

    /// A keyed ID.
    public init(owner: Int, keys: [NodeKey]) {
        self.owner = owner
        self.keys = keys
    }

    /// The ID one key further down.
    public func appending(_ key: NodeKey) -> NodeID {
        NodeID(owner: owner, keys: keys + [key])
    }

    /// The ID as the JavaScript core takes it: a number, or `[owner, key, …]`.
    public var jsonValue: JSONValue {
        keys.isEmpty ? .number(Double(owner)) : .array([.number(Double(owner))] + keys.map(\.jsonValue))
    }

    /// Reads an ID written as a number or as `[owner, key, …]` (keys strings or integers).
    ///
    /// Numbers must be integers that JavaScript holds exactly (`JSONValue.safeIntegerValue`):
    /// past 2^53 − 1 two IDs would be one node to the core. `nil` for anything else.
    public init?(json: JSONValue) {
        switch json {
        case .number:
            guard let owner = json.safeIntegerValue else { return nil }
            self.init(owner)
        case let .array(elements):
            guard let owner = elements.first?.safeIntegerValue else { return nil }
            var keys: [NodeKey] = []
            for element in elements.dropFirst() {
                if case let .string(name) = element {
                    keys.append(.name(name))
                } else if let index = element.safeIntegerValue {
                    keys.append(.index(index))
                } else {
                    return nil
                }
            }
            self.init(owner: owner, keys: keys)
        default:
            return nil
        }
    }

    /// `7` or `[7,"table",2]`.
    public var description: String { jsonValue.jsonText }
}
