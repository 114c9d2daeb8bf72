import OrderedCollections

extension JSONValue: Codable {
    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes any JSON value; a missing value decodes as ``undefined``.
    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: MemberKey.self) {
            var members = OrderedDictionary<String, JSONValue>()
            for key in object.allKeys {
                members[key.stringValue] = try object.decode(JSONValue.self, forKey: key)
            }
            self = .object(members)
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
            self = .array(elements)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let bool = try? single.decode(Bool.self) {
                self = .bool(bool)
            } else if let number = try? single.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    /// Encodes as JSON; ``undefined`` members of objects are left out and elsewhere
    /// encode as `null`, as `JSON.stringify` does.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .undefined, .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case let .bool(value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case let .number(value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case let .string(value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case let .array(elements):
            var array = encoder.unkeyedContainer()
            for element in elements { try array.encode(element) }
        case let .object(members):
            var object = encoder.container(keyedBy: MemberKey.self)
            for (key, value) in members where value != .undefined {
                try object.encode(value, forKey: MemberKey(stringValue: key))
            }
        }
    }
}
