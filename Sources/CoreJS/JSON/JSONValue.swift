import OrderedCollections

/// A JSON-like value that crosses the boundary between Swift and JavaScript.
///
/// `undefined` is kept apart from `null`, and objects remember the order of their keys (so
/// results print the way a task wrote them) while comparing equal regardless of that order.
///
/// Converting a JavaScript value follows the rules of `JSON.stringify`, with these additions:
/// - a top-level `undefined`, function or symbol becomes ``undefined``;
/// - inside an object, properties holding `undefined`, a function or a symbol are left out;
///   inside an array those elements become ``null``;
/// - `NaN` and `±Infinity` become ``null``; a `BigInt` becomes its decimal string;
/// - a `Date` becomes its ISO 8601 string; an `Error` becomes `{ "name", "message" }`;
/// - an object that contains itself (a cycle) has the repeated reference replaced by the
///   string `"[Circular]"`;
/// - containers nested deeper than ``maximumDepth`` levels are cut there, with the string
///   `"[Too deep]"` (the JSON parser refuses such texts too);
/// - past ``maximumConvertedValues`` values the rest is cut, with `"[Truncated]"`; a value
///   whose getter, proxy trap or `toJSON` the time limit stopped becomes `"[Stopped]"`, and
///   the conversion ends there.
///
/// ```swift
/// let value: JSONValue = ["action": "selected", "index": 3, "tags": ["a", "b"]]
/// ```
public enum JSONValue: Sendable {
    /// JavaScript's `undefined`: no value at all.
    case undefined
    /// JavaScript's and JSON's `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A finite IEEE 754 double, the only number type of JavaScript.
    case number(Double)
    /// A string.
    case string(String)
    /// An array of values.
    case array([JSONValue])
    /// An object: keys in the order they were written.
    case object(OrderedDictionary<String, JSONValue>)
}

extension JSONValue {
    /// How deeply arrays and objects may nest when converted from JavaScript or parsed.
    public static let maximumDepth = 512
    /// What stands for a container nested deeper than ``maximumDepth``.
    static let tooDeep = JSONValue.string("[Too deep]")
    /// The most values read from one JavaScript value; what is left is cut, with
    /// ``truncated`` where the cut is.
    public static let maximumConvertedValues = 1_000_000
    /// What stands for the values past ``maximumConvertedValues``.
    static let truncated = JSONValue.string("[Truncated]")
    /// What stands for a value whose reading the watchdog stopped (a getter, proxy trap or
    /// `toJSON` that ran past the time limit).
    static let stopped = JSONValue.string("[Stopped]")
}

extension JSONValue: Equatable {
    /// Objects are equal when they hold the same keys with equal values, in any order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.undefined, .undefined), (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            guard a.count == b.count else { return false }
            return a.allSatisfy { key, value in b[key] == value }
        default: return false
        }
    }
}

extension JSONValue {
    /// Whether this is `undefined` (left out of objects, as `JSON.stringify` does).
    public var isUndefined: Bool {
        if case .undefined = self { return true }
        return false
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    /// The number, when this is a number.
    public var numberValue: Double? {
        if case let .number(value) = self { return value }
        return nil
    }

    /// The largest integer that JavaScript's numbers hold exactly, 2^53 − 1
    /// (`Number.MAX_SAFE_INTEGER`): past it, neighbouring integers share a number.
    public static let maximumSafeInteger = 9_007_199_254_740_991

    /// The number as an `Int`, when it is an integer that JavaScript holds exactly
    /// (`Number.isSafeInteger`: at most ``maximumSafeInteger`` in magnitude); `nil` for a
    /// fraction, a larger number, an infinity, or a value that is not a number.
    public var safeIntegerValue: Int? {
        guard case let .number(value) = self, value.rounded() == value, abs(value) <= Double(Self.maximumSafeInteger) else {
            return nil
        }
        return Int(value)
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case let .array(value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: OrderedDictionary<String, JSONValue>? {
        if case let .object(value) = self { return value }
        return nil
    }

    /// The member named `key` of an object, or `nil` for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element at `index` of an array, or `nil` when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `nil` is `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal, stored as a double.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal; keys keep the order written (a repeated key keeps its last value).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Self.members(keys: elements.map(\.0), values: elements.map(\.1)))
    }
}

extension JSONValue {
    /// Object members from parallel keys and values, built in one go when the keys are
    /// unique (the usual case); a key given twice keeps its first place and its last value,
    /// as in JavaScript.
    static func members(keys: [String], values: [JSONValue]) -> OrderedDictionary<String, JSONValue> {
        members(keys: keys, values: values, unique: duplicateKey(in: keys) == nil)
    }

    /// ``members(keys:values:)`` when it is known whether the keys are `unique`.
    static func members(keys: [String], values: [JSONValue], unique: Bool) -> OrderedDictionary<String, JSONValue> {
        if unique {
            return OrderedDictionary(uncheckedUniqueKeys: keys, values: values)
        }
        var members = OrderedDictionary<String, JSONValue>()
        for (key, value) in zip(keys, values) { members[key] = value }
        return members
    }

    /// The first key that `keys` holds a second time; `nil` when they are unique (the usual
    /// case, found without allocating for up to 8 keys).
    static func duplicateKey(in keys: [String]) -> String? {
        if keys.count <= 8 {
            for index in keys.indices where keys[..<index].contains(keys[index]) { return keys[index] }
            return nil
        }
        var seen = Set<String>(minimumCapacity: keys.count)
        for key in keys where !seen.insert(key).inserted { return key }
        return nil
    }
}
