import CoreJS
import OrderedCollections

extension JSONValue {
    /// An object of the pairs whose value is not `nil`, in order.
    static func fields(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        var members = OrderedDictionary<String, JSONValue>()
        for (key, value) in pairs {
            if let value { members[key] = value }
        }
        return .object(members)
    }

    /// A whole number.
    static func int(_ value: Int) -> JSONValue { .number(Double(value)) }
}

extension Optional where Wrapped == Int {
    /// The number as JSON, when there is one.
    var json: JSONValue? { map(JSONValue.int) }
}

extension Optional where Wrapped == String {
    /// The string as JSON, when there is one.
    var json: JSONValue? { map(JSONValue.string) }
}
