import CoreJS
import Foundation

/// Encodes module operations as numbers for ``ModuleBridgeScript``: one `Float64Array` per
/// batch instead of one JavaScript object per value.
///
/// Per operation: `code, time` then
/// - register (0): `id, parent, name, index, namespace, attributes`
/// - event (1): `id, name, properties`
/// - deregister (2): `id`
///
/// An ID is `kind, value`: `0, number` for a plain ID, `1, string` for a keyed ID (its JSON
/// text), `-1, 0` for none. Strings are indexes: `≥ 0` into the interned table both sides
/// keep, `< 0` into this batch's literals. An object is `count` then `key, value` pairs
/// (undefined members left out); `-1` is null, `-2` a value that is not an object. A value
/// is `tag[, payload]`: 0 number, 1 string, 2 true, 3 false, 4 null, 5 JSON text. Missing
/// numbers (time, index, namespace) are NaN.
struct OperationEncoder {
    /// Strings longer than this are sent as literals, never interned.
    static let internLimit = 64
    /// When the interned table reaches this size, both sides start over.
    static let tableLimit = 65_536

    private var interned = StringInterner()
    private(set) var numbers: [Double] = []
    private(set) var newStrings: [String] = []
    private(set) var literals: [String] = []
    private(set) var resetTable = false

    /// Forgets the interned table (both sides start over with the next batch): after a
    /// batch that may not have reached JavaScript.
    mutating func invalidate() {
        interned.removeAll()
        forceReset = true
    }

    private var forceReset = false

    /// Starts a new batch (the interned table carries over).
    mutating func beginBatch() {
        numbers.removeAll(keepingCapacity: true)
        newStrings.removeAll(keepingCapacity: true)
        literals.removeAll(keepingCapacity: true)
        resetTable = forceReset
        forceReset = false
        if interned.count >= Self.tableLimit {
            interned.removeAll()
            resetTable = true
        }
    }

    mutating func encode(_ operation: ModuleOperation, time: Double?) {
        switch operation {
        case let .register(id, parent, name, index, namespace, attributes):
            numbers.append(0)
            numbers.append(time ?? .nan)
            encode(id)
            if let parent { encode(parent) } else { numbers.append(-1); numbers.append(0) }
            numbers.append(Double(string(name)))
            numbers.append(index.map(Double.init) ?? .nan)
            numbers.append(namespace.map { Double(string($0)) } ?? .nan)
            encodeObject(attributes ?? .null)
        case let .event(id, name, properties):
            numbers.append(1)
            numbers.append(time ?? .nan)
            encode(id)
            numbers.append(Double(string(name)))
            encodeObject(properties)
        case let .deregister(id):
            numbers.append(2)
            numbers.append(time ?? .nan)
            encode(id)
        }
    }

    private mutating func encode(_ id: NodeID) {
        if id.keys.isEmpty {
            numbers.append(0)
            numbers.append(Double(id.owner))
        } else {
            numbers.append(1)
            numbers.append(Double(string(id.jsonValue.jsonText)))
        }
    }

    private mutating func encodeObject(_ value: JSONValue) {
        switch value {
        case let .object(members):
            numbers.append(Double(members.values.count { !$0.isUndefined }))
            for (key, member) in members where !member.isUndefined {
                numbers.append(Double(string(key)))
                encodeValue(member)
            }
        case .null, .undefined:
            numbers.append(-1)
        default:
            numbers.append(-2)
            encodeValue(value)
        }
    }

    private mutating func encodeValue(_ value: JSONValue) {
        switch value {
        case let .number(number):
            numbers.append(0)
            numbers.append(number)
        case let .string(text):
            numbers.append(1)
            numbers.append(Double(string(text)))
        case .bool(true): numbers.append(2)
        case .bool(false): numbers.append(3)
        case .null, .undefined: numbers.append(4)
        case .array, .object:
            numbers.append(5)
            numbers.append(Double(literal(value.jsonText)))
        }
    }

    /// The index of `text`: interned when short, else a literal of this batch.
    private mutating func string(_ text: String) -> Int {
        guard text.utf8.count <= Self.internLimit else { return literal(text) }
        let (index, isNew) = interned.number(of: text)
        if isNew { newStrings.append(text) }
        return index
    }

    private mutating func literal(_ text: String) -> Int {
        literals.append(text)
        return -literals.count
    }
}
