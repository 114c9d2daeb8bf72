import CoreJS
import Foundation

/// Encodes module operations as numbers in the ``BridgeWire`` format: one `Float64Array` per
/// batch instead of one JavaScript object per value. The ``Manager`` encodes each operation
/// as it is sent (on the sending thread), so its script queue only copies numbers across.
/// Short strings are interned (numbered once per table); long ones are literals of their
/// batch. Undefined members of objects are left out.
struct OperationEncoder {
    /// Strings longer than this are sent as literals, never interned.
    static let internLimit = 64
    /// When the interned table reaches this size, both sides start over.
    static let tableLimit = 65_536

    private var interned = StringInterner()
    /// The interned number of each keyed ID's JSON text, so it is written once, not per event.
    private var keyedIDs: [NodeID: Int] = [:]
    /// The numbers of ``StandardEvent/updated``, ``StandardEvent/keyPath`` and
    /// ``StandardEvent/value`` (every `update` sends them) in the current table; `nil` until
    /// first needed and each time the table starts over.
    private var updateStrings: (name: Int, keyPath: Int, value: Int)?
    /// The batch being encoded.
    private(set) var batch = EncodedOperations()

    /// Empties the batch (keeping its buffers) to start a new one; the interned table
    /// carries over unless it reached ``tableLimit``.
    mutating func beginBatch() {
        batch.removeAll()
        if interned.count >= Self.tableLimit {
            interned.removeAll()
            keyedIDs.removeAll()
            updateStrings = nil
            batch.resetsTable = true
        }
    }

    /// Hands out the batch encoded so far in exchange for `other`, whose buffers the next
    /// batch reuses.
    mutating func exchangeBatch(_ other: inout EncodedOperations) {
        swap(&batch, &other)
        beginBatch()
    }

    /// Sets the time of the batch's operations encoded without one to `time`.
    mutating func fillMissingTimes(with time: Double) {
        for start in batch.starts where batch.numbers[start + 1].isNaN { batch.numbers[start + 1] = time }
    }

    mutating func encode(_ operation: ModuleOperation, time: Double?) {
        switch operation {
        case let .register(id, parent, name, index, namespace, attributes):
            beginOperation(.register, time: time)
            encode(id)
            if let parent {
                encode(parent)
            } else {
                append(BridgeWire.IDKind.absent.rawValue)
                append(0)
            }
            append(Double(string(name)))
            append(index.map(Double.init) ?? .nan)
            append(namespace.map { Double(string($0)) } ?? .nan)
            encodeObject(attributes ?? .null)
        case let .event(id, name, properties):
            encodeEvent(id: id, name: name, properties: .value(properties), time: time)
        case let .deregister(id):
            beginOperation(.deregister, time: time)
            encode(id)
        }
    }

    /// Encodes `recordEvent` with `properties` as ``encode(_:time:)`` encodes an event
    /// whose properties are the object they stand for, without building that object.
    mutating func encodeEvent(id: NodeID, name: String, properties: EventProperties, time: Double?) {
        beginOperation(.event, time: time)
        encode(id)
        switch properties {
        case let .value(value):
            append(Double(string(name)))
            encodeObject(value)  // null and non-objects have their own codes
        case let .update(keyPath, value):
            // The same numbers as the members `forEachMember` gives, with the fixed strings'
            // numbers looked up once per table.
            let fixed = updateStringNumbers()
            append(Double(name == StandardEvent.updated ? fixed.name : string(name)))
            let hasValue = value.map { !$0.isUndefined } ?? false
            append(hasValue ? 2 : 1)
            append(Double(fixed.keyPath))
            append(BridgeWire.ValueTag.string.rawValue)
            append(Double(string(keyPath)))
            if hasValue, let value {
                append(Double(fixed.value))
                encodeValue(value)
            }
        case .attributes:
            append(Double(string(name)))
            encodeMembers(properties.forEachMember)
        }
    }

    /// The numbers of the strings every `update` sends, interned once per table.
    private mutating func updateStringNumbers() -> (name: Int, keyPath: Int, value: Int) {
        if let updateStrings { return updateStrings }
        let numbers = (name: string(StandardEvent.updated), keyPath: string(StandardEvent.keyPath), value: string(StandardEvent.value))
        updateStrings = numbers
        return numbers
    }

    mutating func beginOperation(_ code: BridgeWire.OperationCode, time: Double?) {
        batch.starts.append(batch.numbers.count)
        batch.literalStarts.append(batch.literals.count)
        append(code.rawValue)
        append(time ?? .nan)
    }

    mutating func append(_ number: Double) {
        batch.numbers.append(number)
    }

    mutating func encode(_ id: NodeID) {
        if id.keys.isEmpty {
            append(BridgeWire.IDKind.plain.rawValue)
            append(Double(id.owner))
        } else {
            append(BridgeWire.IDKind.keyed.rawValue)
            if let known = keyedIDs[id] {
                append(Double(known))
            } else {
                let number = string(id.description)
                if number >= 0 { keyedIDs[id] = number }  // (a literal when very long: not kept)
                append(Double(number))
            }
        }
    }

    mutating func encodeObject(_ value: JSONValue) {
        switch value {
        case let .object(members):
            encodeMembers { body in
                for (key, member) in members { body(key, member) }
            }
        case .null, .undefined:
            append(BridgeWire.ObjectHeader.null.rawValue)
        default:
            append(BridgeWire.ObjectHeader.value.rawValue)
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
            append(BridgeWire.ValueTag.number.rawValue)
            append(number)
        case let .string(text):
            append(BridgeWire.ValueTag.string.rawValue)
            append(Double(string(text)))
        case .bool(true): append(BridgeWire.ValueTag.true.rawValue)
        case .bool(false): append(BridgeWire.ValueTag.false.rawValue)
        case .null, .undefined: append(BridgeWire.ValueTag.null.rawValue)
        case .array, .object:
            append(BridgeWire.ValueTag.json.rawValue)
            append(Double(literal(value.jsonText)))
        }
    }

    /// The index of `text`: interned when short, else a literal of this batch.
    mutating func string(_ text: String) -> Int {
        guard text.utf8.count <= Self.internLimit else { return literal(text) }
        let (index, isNew) = interned.number(of: text)
        if isNew { batch.newStrings.append(text) }
        return index
    }

    mutating func literal(_ text: String) -> Int {
        batch.literals.append(text)
        return -batch.literals.count
    }

    /// The index of the string whose UTF-8 bytes are `bytes` (valid UTF-8), as
    /// ``string(_:)`` numbers it: interned by its bytes when short, else a literal; a
    /// `String` is made only for a string new to the table or a literal.
    mutating func string(utf8 bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count <= Self.internLimit else { return literal(String(decoding: bytes, as: UTF8.self)) }
        let (index, isNew) = interned.number(ofBytes: bytes.assumingMemoryBound(to: UInt8.self))
        if isNew { batch.newStrings.append(String(decoding: bytes, as: UTF8.self)) }
        return index
    }
}
