import CoreJS

/// An event's properties in the form the analyzer was given them, so the encoder can write
/// an object's members without building the object first.
enum EventProperties: Sendable {
    /// Properties given whole (usually an object).
    case value(JSONValue)
    /// `ana-updated`: `key-path`, then `value` unless it is `nil`.
    case update(keyPath: String, value: JSONValue?)
    /// Attributes, sent as an object with the keys sorted (for a stable order).
    case attributes([String: JSONValue])

    /// Calls `body` with each member of the object the properties stand for, in order (for
    /// ``value(_:)``, the members of an object; none for any other value).
    func forEachMember(_ body: (String, JSONValue) -> Void) {
        switch self {
        case let .value(value):
            guard case let .object(members) = value else { return }
            for (key, member) in members { body(key, member) }
        case let .update(keyPath, value):
            body(StandardEvent.keyPath, .string(keyPath))
            if let value { body(StandardEvent.value, value) }
        case let .attributes(attributes) where attributes.count <= 1:
            for (key, value) in attributes { body(key, value) }
        case let .attributes(attributes):
            for (key, value) in attributes.sorted(by: { $0.key < $1.key }) { body(key, value) }
        }
    }
}
