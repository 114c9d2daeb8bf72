import CoreJS

/// A Swift value that can be sent to tasks (`update(_:for:)`, observed values, attributes).
public protocol JSONValueConvertible {
    /// The value as JSON-like data.
    var jsonValue: JSONValue { get }
}

extension JSONValue: JSONValueConvertible {
    /// Itself.
    public var jsonValue: JSONValue { self }
}

extension String: JSONValueConvertible {
    /// A string.
    public var jsonValue: JSONValue { .string(self) }
}

extension Int: JSONValueConvertible {
    /// A number.
    public var jsonValue: JSONValue { .number(Double(self)) }
}

extension Double: JSONValueConvertible {
    /// A number (`null` when not finite).
    public var jsonValue: JSONValue { isFinite ? .number(self) : .null }
}

extension Bool: JSONValueConvertible {
    /// A boolean.
    public var jsonValue: JSONValue { .bool(self) }
}

extension Optional: JSONValueConvertible where Wrapped: JSONValueConvertible {
    /// The wrapped value, or `null`.
    public var jsonValue: JSONValue { map(\.jsonValue) ?? .null }
}

extension Array: JSONValueConvertible where Element: JSONValueConvertible {
    /// An array.
    public var jsonValue: JSONValue { .array(map(\.jsonValue)) }
}

extension Dictionary: JSONValueConvertible where Key == String, Value: JSONValueConvertible {
    /// An object (keys sorted, for a stable order).
    public var jsonValue: JSONValue {
        .object(.init(uniqueKeysWithValues: sorted { $0.key < $1.key }.map { ($0.key, $0.value.jsonValue) }))
    }
}
