import CoreJS
import Foundation

/// Encodes module operations as numbers for ``ModuleBridgeScript``: one `Float64Array` per
/// batch instead of one JavaScript object per value. The ``Manager`` encodes each operation
/// as it is sent (on the sending thread), so its script queue only copies numbers across.
///
/// Per operation: `code, time` then
/// - register (0): `id, parent, name, index, namespace, attributes`
/// - event (1): `id, name, properties`
/// - deregister (2): `id`
///
/// An ID is `kind, value`: `0, number` for a plain ID, `1, string` for a keyed ID (its JSON
/// text), `-1, 0` for none. Strings are indexes: `≥ 0` into the interned table (each batch
/// brings the strings it added; see ``StringTableMirror``), `< 0` into the batch's
/// literals. An object is `count` then `key, value` pairs (undefined members left out);
/// `-1` is null, `-2` a value that is not an object. A value is `tag[, payload]`: 0 number,
/// 1 string, 2 true, 3 false, 4 null, 5 JSON text. Missing numbers (time, index,
/// namespace) are NaN.
struct OperationEncoder {
    /// Strings longer than this are sent as literals, never interned.
    static let internLimit = 64
    /// When the interned table reaches this size, both sides start over.
    static let tableLimit = 65_536

    private var interned = StringInterner()
    /// The interned number of each keyed ID's JSON text, so it is written once, not per event.
    private var keyedIDs: [NodeID: Int] = [:]
    /// The batch being encoded.
    private(set) var batch = EncodedOperations()

    /// Empties the batch (keeping its buffers) to start a new one; the interned table
    /// carries over unless it reached ``tableLimit``.
    mutating func beginBatch() {
        batch.removeAll()
        if interned.count >= Self.tableLimit {
            interned.removeAll()
            keyedIDs.removeAll()
            batch.resetsTable = true
        }
    }

    /// Hands out the batch encoded so far in exchange for `other`, whose buffers the next
    /// batch reuses.
    mutating func exchangeBatch(_ other: inout EncodedOperations) {
        swap(&batch, &other)
        beginBatch()
    }

    mutating func encode(_ operation: ModuleOperation, time: Double?) {
        switch operation {
        case let .register(id, parent, name, index, namespace, attributes):
            beginOperation(code: 0, time: time)
            encode(id)
            if let parent { encode(parent) } else { append(-1); append(0) }
            append(Double(string(name)))
            append(index.map(Double.init) ?? .nan)
            append(namespace.map { Double(string($0)) } ?? .nan)
            encodeObject(attributes ?? .null)
        case let .event(id, name, properties):
            encodeEvent(id: id, name: name, properties: .value(properties), time: time)
        case let .deregister(id):
            beginOperation(code: 2, time: time)
            encode(id)
        }
    }

    /// Encodes `recordEvent` with `properties` as ``encode(_:time:)`` encodes an event
    /// whose properties are the object they stand for, without building that object.
    mutating func encodeEvent(id: NodeID, name: String, properties: EventProperties, time: Double?) {
        beginOperation(code: 1, time: time)
        encode(id)
        append(Double(string(name)))
        switch properties {
        case let .value(value): encodeObject(value)  // null and non-objects have their own codes
        case .update, .attributes: encodeMembers(properties.forEachMember)
        }
    }

    private mutating func beginOperation(code: Double, time: Double?) {
        batch.starts.append(batch.numbers.count)
        batch.literalStarts.append(batch.literals.count)
        append(code)
        append(time ?? .nan)
    }

    private mutating func append(_ number: Double) {
        batch.numbers.append(number)
    }

    private mutating func encode(_ id: NodeID) {
        if id.keys.isEmpty {
            append(0)
            append(Double(id.owner))
        } else {
            append(1)
            if let known = keyedIDs[id] {
                append(Double(known))
            } else {
                let number = string(id.description)
                if number >= 0 { keyedIDs[id] = number }  // (a literal when very long: not kept)
                append(Double(number))
            }
        }
    }

    private mutating func encodeObject(_ value: JSONValue) {
        switch value {
        case let .object(members):
            encodeMembers { body in
                for (key, member) in members { body(key, member) }
            }
        case .null, .undefined:
            append(-1)
        default:
            append(-2)
            encodeValue(value)
        }
    }

    /// An object: its member count, then `key, value` pairs; undefined members are left out.
    private mutating func encodeMembers(_ forEachMember: ((String, JSONValue) -> Void) -> Void) {
        let countSlot = batch.numbers.count
        append(0)
        var count = 0
        forEachMember { key, value in
            guard !value.isUndefined else { return }
            count += 1
            append(Double(string(key)))
            encodeValue(value)
        }
        batch.numbers[countSlot] = Double(count)
    }

    private mutating func encodeValue(_ value: JSONValue) {
        switch value {
        case let .number(number):
            append(0)
            append(number)
        case let .string(text):
            append(1)
            append(Double(string(text)))
        case .bool(true): append(2)
        case .bool(false): append(3)
        case .null, .undefined: append(4)
        case .array, .object:
            append(5)
            append(Double(literal(value.jsonText)))
        }
    }

    /// The index of `text`: interned when short, else a literal of this batch.
    private mutating func string(_ text: String) -> Int {
        guard text.utf8.count <= Self.internLimit else { return literal(text) }
        let (index, isNew) = interned.number(of: text)
        if isNew { batch.newStrings.append(text) }
        return index
    }

    private mutating func literal(_ text: String) -> Int {
        batch.literals.append(text)
        return -batch.literals.count
    }
}

/// A batch of encoded operations (see ``OperationEncoder``).
struct EncodedOperations: Sendable {
    /// The operations' numbers, one after the other.
    var numbers: [Double] = []
    /// Where each operation's numbers start.
    var starts: [Int] = []
    /// How many literals the operations before each one added.
    var literalStarts: [Int] = []
    /// The strings the batch added to the interned table, in order.
    var newStrings: [String] = []
    /// The batch's literals (string index `-1 - i` is `literals[i]`).
    var literals: [String] = []
    /// Whether the interned table starts over with this batch.
    var resetsTable = false

    /// How many operations the batch holds.
    var count: Int { starts.count }

    /// An empty batch.
    init() {}

    /// An empty batch with room for `operations` operations of up to
    /// ``numbersReservedPerOperation`` numbers, so that it does not grow (copying and
    /// faulting in every size on the way) while they are encoded.
    init(reservingFor operations: Int) {
        numbers.reserveCapacity(operations * Self.numbersReservedPerOperation)
        starts.reserveCapacity(operations)
        literalStarts.reserveCapacity(operations)
    }

    /// Numbers reserved per operation: an event with two properties takes 12.
    static let numbersReservedPerOperation = 12

    /// The numbers of operations `range`.
    func numbers(of range: Range<Int>) -> ArraySlice<Double> {
        let end = range.upperBound < starts.count ? starts[range.upperBound] : numbers.count
        return numbers[starts[range.lowerBound]..<end]
    }

    /// The literals of operations `range` (the slice keeps the batch's indices).
    func literals(of range: Range<Int>) -> ArraySlice<String> {
        let end = range.upperBound < literalStarts.count ? literalStarts[range.upperBound] : literals.count
        return literals[literalStarts[range.lowerBound]..<end]
    }

    /// Empties the batch, keeping its buffers.
    mutating func removeAll() {
        numbers.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        literalStarts.removeAll(keepingCapacity: true)
        newStrings.removeAll(keepingCapacity: true)
        literals.removeAll(keepingCapacity: true)
        resetsTable = false
    }
}

/// The interned strings as JavaScript holds them after the batches seen so far: what an
/// engine must be sent to decode the next batch when it missed earlier ones (it was loaded
/// later, or a call failed before its strings arrived).
struct StringTableMirror {
    /// The strings by number.
    private(set) var strings: [String] = []
    /// Counts the times the table started over.
    private(set) var generation = 0

    /// Takes in the strings `batch` adds.
    mutating func add(_ batch: EncodedOperations) {
        if batch.resetsTable {
            strings.removeAll(keepingCapacity: true)
            generation += 1
        }
        strings.append(contentsOf: batch.newStrings)
    }

    /// String `index` of `batch`: interned when `index >= 0`, else one of its literals.
    func string(_ index: Int, in batch: EncodedOperations) -> String? {
        if index >= 0 { return index < strings.count ? strings[index] : nil }
        let literal = -index - 1
        return literal < batch.literals.count ? batch.literals[literal] : nil
    }
}
