// Over 300 lines: one scanner over a line's bytes and the encoding of what it found, kept
// together so that what the fast path accepts can be read against EventStream.parse(line:).
@_spi(JSONScanning) import CoreJS
import Foundation

/// Decodes the usual lines of an event stream straight from their bytes into an
/// ``OperationEncoder``, with no `JSONValue` tree, no `String` per value and no allocation
/// per line.
///
/// It takes only what it can decode exactly as ``EventStream/parse(line:)`` followed by
/// ``OperationEncoder/encode(_:time:)`` would: a line that is one JSON object of the known
/// keys, each once, for `register`, `event`, `update`, `appear`, `disappear` or
/// `deregister`, whose strings have no escapes and are valid UTF-8, whose IDs are plain
/// integers, and whose `properties`, `attributes` and `value` hold no arrays or nested
/// objects (whose keys, when there are several, are ASCII: duplicates are found by their
/// bytes). Anything else (another op, a keyed ID, an escape, a value of a type its key never
/// takes, any mistake) is left to the full parser, which decodes it or reports it with its
/// usual message: this path never reports an error.
struct EventStreamLineDecoder {
    /// A scalar value found on the line.
    private struct Value {
        enum Kind: UInt8 {
            case string, number, `true`, `false`, null
        }

        var kind: Kind
        /// A string's bytes.
        var text = 0..<0
        var number = 0.0

        static let null = Value(kind: .null)
    }

    /// A member of one of the line's objects: its key's bytes and its scalar value.
    private struct Member {
        var key: Range<Int>
        var value: Value
    }

    /// The keys a line may have (of any op).
    private enum Key: Int {
        case op, time, id, parent, name, index, namespace, attributes, properties, keyPath, value

        /// This key as a bit of ``Fields/present``.
        var bit: UInt16 { 1 << UInt16(rawValue) }
    }

    /// What the line's keys hold, each read as the only type its key takes (`null` for
    /// none where it may be `null`): a line with another type is not one this path takes.
    private struct Fields {
        /// The keys the line has, as bits (``Key/bit``).
        var present: UInt16 = 0
        var op = 0..<0
        var time: Double?
        var id = 0
        var parent: Int?
        var name = 0..<0
        var index: Int?
        var namespace: Range<Int>?
        /// Members (of ``EventStreamLineDecoder/members``), `nil` for `null`.
        var attributes: Range<Int>?
        var properties: Range<Int>?
        var keyPath = 0..<0
        var value = Value.null

        func has(_ key: Key) -> Bool { present & key.bit != 0 }
    }

    /// Members of the line's objects (kept between lines for its storage).
    private var members: [Member] = []

    /// The standard names (``StandardEvent``) an `update`, `appear` or `disappear` line
    /// becomes, as bytes: made once per decoder, not per line.
    private struct StandardNames {
        let updated = Array(StandardEvent.updated.utf8)
        let appeared = Array(StandardEvent.appeared.utf8)
        let disappeared = Array(StandardEvent.disappeared.utf8)
        let keyPath = Array(StandardEvent.keyPath.utf8)
        let value = Array(StandardEvent.value.utf8)
    }

    private let standardNames = StandardNames()

    /// Encodes the line's operation into `encoder` and returns `true`, or returns `false`
    /// (encoding nothing) when the line is not one this path takes.
    mutating func encode(_ line: UnsafeRawBufferPointer, into encoder: inout OperationEncoder) -> Bool {
        var cursor = JSONByteCursor(line.assumingMemoryBound(to: UInt8.self))
        var fields = Fields()
        if !members.isEmpty { members.removeAll(keepingCapacity: true) }
        guard scanLine(&cursor, into: &fields) else { return false }
        return encodeOperation(fields, line: line, into: &encoder)
    }

    // MARK: - Scanning

    /// `{ "key": value, … }` and nothing after it but whitespace.
    private mutating func scanLine(_ cursor: inout JSONByteCursor, into fields: inout Fields) -> Bool {
        cursor.skipWhitespace()
        guard cursor.consume(UInt8(ascii: "{")) else { return false }
        cursor.skipWhitespace()
        if !cursor.consume(UInt8(ascii: "}")) {
            while true {
                cursor.skipWhitespace()
                guard let key = Self.scanKey(&cursor), fields.present & key.bit == 0 else { return false }
                fields.present |= key.bit
                cursor.skipWhitespace()
                guard cursor.consume(UInt8(ascii: ":")) else { return false }
                cursor.skipWhitespace()
                guard scanValue(of: key, &cursor, into: &fields) else { return false }
                cursor.skipWhitespace()
                if cursor.consume(UInt8(ascii: ",")) { continue }
                guard cursor.consume(UInt8(ascii: "}")) else { return false }
                break
            }
        }
        cursor.skipWhitespace()
        return cursor.atEnd
    }

    /// A quoted key that is exactly one of ``Key``'s names (its bytes, then the closing
    /// quote), told by its first letter; `nil` for any other string.
    private static func scanKey(_ cursor: inout JSONByteCursor) -> Key? {
        let room = cursor.bytes.count - cursor.position - 1
        guard room >= 3, let base = cursor.bytes.baseAddress, cursor.bytes[cursor.position] == UInt8(ascii: "\"") else { return nil }
        let name = UnsafeRawPointer(base + cursor.position + 1)
        func matches(_ quoted: StaticString) -> Bool {
            quoted.utf8CodeUnitCount <= room
                && JSONByteWords.equal(name, UnsafeRawPointer(quoted.utf8Start), count: quoted.utf8CodeUnitCount)
        }
        let key: Key
        let length: Int
        switch cursor.bytes[cursor.position + 1] {
        case UInt8(ascii: "o") where matches(#"op""#): (key, length) = (.op, 2)
        case UInt8(ascii: "i") where matches(#"id""#): (key, length) = (.id, 2)
        case UInt8(ascii: "i") where matches(#"index""#): (key, length) = (.index, 5)
        case UInt8(ascii: "t") where matches(#"time""#): (key, length) = (.time, 4)
        case UInt8(ascii: "n") where matches(#"name""#): (key, length) = (.name, 4)
        case UInt8(ascii: "n") where matches(#"namespace""#): (key, length) = (.namespace, 9)
        case UInt8(ascii: "p") where matches(#"properties""#): (key, length) = (.properties, 10)
        case UInt8(ascii: "p") where matches(#"parent""#): (key, length) = (.parent, 6)
        case UInt8(ascii: "v") where matches(#"value""#): (key, length) = (.value, 5)
        case UInt8(ascii: "k") where matches(#"keyPath""#): (key, length) = (.keyPath, 7)
        case UInt8(ascii: "a") where matches(#"attributes""#): (key, length) = (.attributes, 10)
        default: return nil
        }
        cursor.position += length + 2
        return key
    }

    /// Reads the value of `key` into `fields`; `false` when it is not of a type `key` takes.
    private mutating func scanValue(of key: Key, _ cursor: inout JSONByteCursor, into fields: inout Fields) -> Bool {
        switch key {
        case .op:
            guard let text = cursor.scanStringBody(.none)?.range else { return false }
            fields.op = text
        case .name:
            guard let text = cursor.scanStringBody(.none)?.range else { return false }
            fields.name = text
        case .keyPath:
            guard let text = cursor.scanStringBody(.none)?.range else { return false }
            fields.keyPath = text
        case .namespace:
            if cursor.consume("null") { return true }
            guard let text = cursor.scanStringBody(.none)?.range else { return false }
            fields.namespace = text
        case .time:
            if cursor.consume("null") { return true }
            guard let number = cursor.scanNumber(), number.value.isFinite else { return false }
            fields.time = number.value
        case .id:
            guard let id = Self.scanInteger(&cursor) else { return false }
            fields.id = id
        case .parent:
            if cursor.consume("null") { return true }
            guard let parent = Self.scanInteger(&cursor) else { return false }
            fields.parent = parent
        case .index:
            if cursor.consume("null") { return true }
            guard let index = Self.scanInteger(&cursor) else { return false }
            fields.index = index
        case .attributes:
            if cursor.consume("null") { return true }
            guard let range = scanObject(&cursor) else { return false }
            fields.attributes = range
        case .properties:
            if cursor.consume("null") { return true }
            guard let range = scanObject(&cursor) else { return false }
            fields.properties = range
        case .value:
            guard let value = Self.scanScalar(&cursor) else { return false }
            fields.value = value
        }
        return true
    }

    /// A number that is an integer JavaScript holds exactly.
    private static func scanInteger(_ cursor: inout JSONByteCursor) -> Int? {
        guard let number = cursor.scanNumber() else { return nil }
        guard
            number.isShortInteger
                || (number.value.rounded() == number.value && abs(number.value) <= Double(JSONValue.maximumSafeInteger))
        else { return nil }
        return Int(number.value)
    }

    private static func scanScalar(_ cursor: inout JSONByteCursor) -> Value? {
        switch cursor.current {
        case UInt8(ascii: "\"")?: return cursor.scanStringBody(.none).map { Value(kind: .string, text: $0.range) }
        case UInt8(ascii: "t")?: return cursor.consume("true") ? Value(kind: .true) : nil
        case UInt8(ascii: "f")?: return cursor.consume("false") ? Value(kind: .false) : nil
        case UInt8(ascii: "n")?: return cursor.consume("null") ? .null : nil
        case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?:
            guard let number = cursor.scanNumber(), number.value.isFinite else { return nil }
            return Value(kind: .number, number: number.value)
        default: return nil
        }
    }

    /// The most members an object read on the fast path has.
    static let maximumFastMembers = 32

    /// An object of at most ``maximumFastMembers`` scalar members with distinct keys (ASCII
    /// ones, when there are several); returns where its members are in ``members``.
    private mutating func scanObject(_ cursor: inout JSONByteCursor) -> Range<Int>? {
        guard cursor.consume(UInt8(ascii: "{")) else { return nil }
        let first = members.count
        var allKeysASCII = true
        cursor.skipWhitespace()
        if cursor.consume(UInt8(ascii: "}")) { return first..<first }
        while true {
            cursor.skipWhitespace()
            guard let body = cursor.scanStringBody(.none), let base = cursor.bytes.baseAddress else { return nil }
            let key = body.range
            // Keys are told apart by their bytes; two of which one is not ASCII may be equal
            // to the full parser (canonical equivalence), which refuses them.
            allKeysASCII = allKeysASCII && body.isASCII
            if members.count > first, !allKeysASCII { return nil }
            // Each key is compared with the earlier ones: a larger object goes to the full
            // parser, which finds duplicates in linear time (80,000 keys took 13 s here).
            if members.count - first >= Self.maximumFastMembers { return nil }
            for earlier in members[first...]
            where earlier.key.count == key.count
                && JSONByteWords.equal(base + earlier.key.lowerBound, base + key.lowerBound, count: key.count)
            {
                return nil
            }
            cursor.skipWhitespace()
            guard cursor.consume(UInt8(ascii: ":")) else { return nil }
            cursor.skipWhitespace()
            guard let value = Self.scanScalar(&cursor) else { return nil }
            members.append(Member(key: key, value: value))
            cursor.skipWhitespace()
            if cursor.consume(UInt8(ascii: ",")) { continue }
            guard cursor.consume(UInt8(ascii: "}")) else { return nil }
            return first..<members.count
        }
    }

    // MARK: - Encoding

    /// The ops this path encodes.
    private enum Op {
        case register, event, update, appear, disappear, deregister

        /// The keys each may have, as bits (``Key/bit``).
        var keys: UInt16 {
            let common = Key.op.bit | Key.time.bit | Key.id.bit
            switch self {
            case .register: return common | Key.parent.bit | Key.name.bit | Key.index.bit | Key.namespace.bit | Key.attributes.bit
            case .event: return common | Key.name.bit | Key.properties.bit
            case .update: return common | Key.keyPath.bit | Key.value.bit
            case .appear, .disappear, .deregister: return common
            }
        }

        /// The op named by the `count` bytes at `name`.
        init?(_ name: UnsafeRawPointer, count: Int) {
            switch count {
            case 5 where JSONByteWords.equal(name, count: count, "event"): self = .event
            case 6 where JSONByteWords.equal(name, count: count, "update"): self = .update
            case 6 where JSONByteWords.equal(name, count: count, "appear"): self = .appear
            case 8 where JSONByteWords.equal(name, count: count, "register"): self = .register
            case 9 where JSONByteWords.equal(name, count: count, "disappear"): self = .disappear
            case 10 where JSONByteWords.equal(name, count: count, "deregister"): self = .deregister
            default: return nil
            }
        }
    }

    private func encodeOperation(_ fields: Fields, line: UnsafeRawBufferPointer, into encoder: inout OperationEncoder) -> Bool {
        guard fields.has(.op), fields.has(.id), let base = line.baseAddress,
            let op = Op(base + fields.op.lowerBound, count: fields.op.count), fields.present & ~op.keys == 0
        else { return false }
        func text(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: line[range]) }
        let id = NodeID(fields.id)
        switch op {
        case .register:
            guard fields.has(.name), !fields.name.isEmpty else { return false }
            encoder.beginOperation(.register, time: fields.time)
            encoder.encode(id)
            if let parent = fields.parent {
                encoder.encode(NodeID(parent))
            } else {
                encoder.append(BridgeWire.IDKind.absent.rawValue)
                encoder.append(0)
            }
            encoder.append(Double(encoder.string(utf8: text(fields.name))))
            encoder.append(fields.index.map(Double.init) ?? .nan)
            encoder.append(fields.namespace.map { Double(encoder.string(utf8: text($0))) } ?? .nan)
            if let attributes = fields.attributes {
                encodeMembers(attributes, line: line, into: &encoder)
            } else {
                encoder.append(BridgeWire.ObjectHeader.null.rawValue)
            }
        case .event:
            guard fields.has(.name), !fields.name.isEmpty else { return false }
            encoder.beginOperation(.event, time: fields.time)
            encoder.encode(id)
            encoder.append(Double(encoder.string(utf8: text(fields.name))))
            encodeMembers(fields.properties ?? 0..<0, line: line, into: &encoder)
        case .update:
            guard fields.has(.keyPath), !fields.keyPath.isEmpty else { return false }
            let hasValue = fields.has(.value)
            encoder.beginOperation(.event, time: fields.time)
            encoder.encode(id)
            encoder.append(Double(standardNames.updated.withUnsafeBytes { encoder.string(utf8: $0) }))
            encoder.append(hasValue ? 2 : 1)
            encoder.append(Double(standardNames.keyPath.withUnsafeBytes { encoder.string(utf8: $0) }))
            encodeValue(Value(kind: .string, text: fields.keyPath), line: line, into: &encoder)
            if hasValue {
                encoder.append(Double(standardNames.value.withUnsafeBytes { encoder.string(utf8: $0) }))
                encodeValue(fields.value, line: line, into: &encoder)
            }
        case .appear, .disappear:
            encoder.beginOperation(.event, time: fields.time)
            encoder.encode(id)
            let name = op == .appear ? standardNames.appeared : standardNames.disappeared
            encoder.append(Double(name.withUnsafeBytes { encoder.string(utf8: $0) }))
            encoder.append(0)
        case .deregister:
            encoder.beginOperation(.deregister, time: fields.time)
            encoder.encode(id)
        }
        return true
    }

    /// An object: its member count, then `key, value` pairs.
    private func encodeMembers(_ range: Range<Int>, line: UnsafeRawBufferPointer, into encoder: inout OperationEncoder) {
        encoder.append(Double(range.count))
        for member in members[range] {
            encoder.append(Double(encoder.string(utf8: UnsafeRawBufferPointer(rebasing: line[member.key]))))
            encodeValue(member.value, line: line, into: &encoder)
        }
    }

    private func encodeValue(_ value: Value, line: UnsafeRawBufferPointer, into encoder: inout OperationEncoder) {
        switch value.kind {
        case .number:
            encoder.append(BridgeWire.ValueTag.number.rawValue)
            encoder.append(value.number)
        case .string:
            encoder.append(BridgeWire.ValueTag.string.rawValue)
            encoder.append(Double(encoder.string(utf8: UnsafeRawBufferPointer(rebasing: line[value.text]))))
        case .true: encoder.append(BridgeWire.ValueTag.true.rawValue)
        case .false: encoder.append(BridgeWire.ValueTag.false.rawValue)
        case .null: encoder.append(BridgeWire.ValueTag.null.rawValue)
        }
    }
}
