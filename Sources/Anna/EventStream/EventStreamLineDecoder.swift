// Over 300 lines: one scanner over a line's bytes and the encoding of what it found, kept
// together so that what the fast path accepts can be read against EventStream.parse(line:).
import CoreJS
import Foundation

/// Decodes the usual lines of an event stream straight from their bytes into an
/// ``OperationEncoder``, with no `JSONValue` tree and no `String` per value.
///
/// It takes only what it can decode exactly as ``EventStream/parse(line:)`` followed by
/// ``OperationEncoder/encode(_:time:)`` would: a line that is one JSON object of the known
/// keys, each once, for `register`, `event`, `update`, `appear`, `disappear` or
/// `deregister`, whose strings have no escapes and are valid UTF-8, whose IDs are plain
/// integers, and whose `properties`, `attributes` and `value` hold no arrays or nested
/// objects (whose keys, when there are several, are ASCII: duplicates are found by their bytes). Anything
/// else (another op, a keyed ID, an escape, any mistake) is left to the full parser, which
/// decodes it or reports it with its usual message: this path never reports an error.
struct EventStreamLineDecoder {
    /// A value found on the line: a scalar, or an object whose members are
    /// `members[range]`.
    private enum Value {
        case string(Range<Int>)
        case number(Double)
        case bool(Bool)
        case null
        case object(Range<Int>)
    }

    /// The keys a line may have (of any op).
    private enum Key: Int, CaseIterable {
        case op, time, id, parent, name, index, namespace, attributes, properties, keyPath, value

        /// The key whose name is `bytes`.
        init?(_ bytes: UnsafeRawBufferPointer) {
            let candidates: (Key, Key)
            switch bytes.count {
            case 2: candidates = (.op, .id)
            case 4: candidates = (.time, .name)
            case 5: candidates = (.index, .value)
            case 6: candidates = (.parent, .parent)
            case 7: candidates = (.keyPath, .keyPath)
            case 9: candidates = (.namespace, .namespace)
            case 10: candidates = (.attributes, .properties)
            default: return nil
            }
            if equalBytes(Self.names[candidates.0.rawValue], bytes) {
                self = candidates.0
            } else if equalBytes(Self.names[candidates.1.rawValue], bytes) {
                self = candidates.1
            } else {
                return nil
            }
        }

        /// This key as a bit of ``EventStreamLineDecoder/present``.
        var bit: UInt16 { 1 << UInt16(rawValue) }

        static let names: [[UInt8]] = allCases.map { Array("\($0)".utf8) }
    }

    /// The value of each key on the line, by ``Key/rawValue``; valid where ``present`` has its bit.
    private var fields: [Value] = Array(repeating: .null, count: Key.allCases.count)
    /// The keys the line has, as bits (``Key/bit``).
    private var present: UInt16 = 0
    /// Members of the line's objects: key bytes and scalar values.
    private var members: [(key: Range<Int>, value: Value)] = []
    private var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    private var at = 0

    /// Encodes the line's operation into `encoder` and returns `true`, or returns `false`
    /// (encoding nothing) when the line is not one this path takes.
    mutating func encode(_ line: UnsafeRawBufferPointer, into encoder: inout OperationEncoder) -> Bool {
        bytes = line
        at = 0
        present = 0
        members.removeAll(keepingCapacity: true)
        guard scanLine() else { return false }
        return encodeOperation(into: &encoder)
    }

    // MARK: - Scanning

    private var current: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipWhitespace() {
        while at < bytes.count {
            switch bytes[at] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): at += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        at += 1
        return true
    }

    /// `{ "key": value, … }` and nothing after it but whitespace.
    private mutating func scanLine() -> Bool {
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return finish() }
        while true {
            skipWhitespace()
            guard let keyRange = scanString(), let key = Key(slice(keyRange)), present & key.bit == 0 else { return false }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard let value = scanValue(allowingObject: key == .properties || key == .attributes) else { return false }
            fields[key.rawValue] = value
            present |= key.bit
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "}")) else { return false }
            return finish()
        }
    }

    private mutating func finish() -> Bool {
        skipWhitespace()
        return at == bytes.count
    }

    private mutating func scanValue(allowingObject: Bool) -> Value? {
        switch current {
        case UInt8(ascii: "\"")?: return scanString().map(Value.string)
        case UInt8(ascii: "t")?: return scanLiteral("true", .bool(true))
        case UInt8(ascii: "f")?: return scanLiteral("false", .bool(false))
        case UInt8(ascii: "n")?: return scanLiteral("null", .null)
        case UInt8(ascii: "{")? where allowingObject: return scanObject()
        case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?: return scanNumber().map(Value.number)
        default: return nil
        }
    }

    private mutating func scanLiteral(_ literal: StaticString, _ value: Value) -> Value? {
        let text = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard at + text.count <= bytes.count, equalBytes(slice(at..<at + text.count), text) else { return nil }
        at += text.count
        return value
    }

    /// An object of scalar members with distinct keys (ASCII ones, when there are several).
    private mutating func scanObject() -> Value? {
        at += 1
        let first = members.count
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(first..<first) }
        while true {
            skipWhitespace()
            guard let key = scanString() else { return nil }
            // Keys are told apart by their bytes; two of which one is not ASCII may be equal
            // to the full parser (canonical equivalence), which refuses them.
            if members.count > first, !isASCII(key) || !isASCII(members[first].key) { return nil }
            for earlier in members[first...] where equalBytes(slice(earlier.key), slice(key)) { return nil }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            guard let value = scanValue(allowingObject: false) else { return nil }
            members.append((key, value))
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "}")) else { return nil }
            return .object(first..<members.count)
        }
    }

    /// The bytes between the quotes of a string without escapes or control characters,
    /// checked to be UTF-8.
    private mutating func scanString() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")), let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let start = at
        var index = at
        var ascii = true
        let end = bytes.count
        while index < end {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                at = index + 1
                return ascii || UTF8Validation.isValid(slice(start..<index)) ? start..<index : nil
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        return nil
    }

    /// A number read as `JSONParser` reads it: integers of up to 15 digits summed up, others
    /// through `Double(String)`; `nil` for a bad or infinite one.
    private mutating func scanNumber() -> Double? {
        let start = at
        let negative = consume(UInt8(ascii: "-"))
        guard let first = digit() else { return nil }
        at += 1
        var integer = Int(first)
        while first != 0, let next = digit() {
            integer = integer &* 10 &+ Int(next)
            at += 1
        }
        var isInteger = at - start - (negative ? 1 : 0) <= 15
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            guard digit() != nil else { return nil }
            while digit() != nil { at += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            at += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { at += 1 }
            guard digit() != nil else { return nil }
            while digit() != nil { at += 1 }
        }
        if isInteger {
            let magnitude = Double(integer)
            return negative ? -magnitude : magnitude
        }
        guard let number = Double(String(decoding: slice(start..<at), as: UTF8.self)), number.isFinite else { return nil }
        return number
    }

    private func digit() -> UInt8? {
        guard let value = current.map({ $0 &- UInt8(ascii: "0") }), value < 10 else { return nil }
        return value
    }

    private func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[range])
    }

    private func isASCII(_ range: Range<Int>) -> Bool {
        slice(range).allSatisfy { $0 < 0x80 }
    }

    // MARK: - Encoding

    /// The ops this path encodes, and the keys each may have.
    private enum Op: CaseIterable {
        case register, event, update, appear, disappear, deregister

        static let names: [[UInt8]] = allCases.map { Array("\($0)".utf8) }

        /// The keys as bits (``Key/bit``).
        var keys: UInt16 {
            let common = Key.op.bit | Key.time.bit | Key.id.bit
            switch self {
            case .register: return common | Key.parent.bit | Key.name.bit | Key.index.bit | Key.namespace.bit | Key.attributes.bit
            case .event: return common | Key.name.bit | Key.properties.bit
            case .update: return common | Key.keyPath.bit | Key.value.bit
            case .appear, .disappear, .deregister: return common
            }
        }
    }

    private func field(_ key: Key) -> Value? { present & key.bit == 0 ? nil : fields[key.rawValue] }

    private mutating func encodeOperation(into encoder: inout OperationEncoder) -> Bool {
        guard case let .string(opRange)? = field(.op),
            let found = Op.names.firstIndex(where: { equalBytes($0, slice(opRange)) })
        else { return false }
        let op = Op.allCases[found]
        guard present & ~op.keys == 0 else { return false }
        let time: Double?
        switch field(.time) {
        case nil, .null?: time = nil
        case let .number(number)?: time = number
        default: return false
        }
        guard let id = nodeID(field(.id)) else { return false }
        switch op {
        case .register:
            return encodeRegister(id: id, time: time, into: &encoder)
        case .event:
            guard let name = nonEmptyString(.name) else { return false }
            let properties: Range<Int>
            switch field(.properties) {
            case nil, .null?: properties = 0..<0
            case let .object(range)?: properties = range
            default: return false
            }
            encoder.beginOperation(.event, time: time)
            encoder.encode(id)
            encoder.append(Double(encoder.string(utf8: slice(name))))
            encodeMembers(properties, into: &encoder)
        case .update:
            guard let keyPath = nonEmptyString(.keyPath) else { return false }
            let value = field(.value)
            if case .object? = value { return false }
            encoder.beginOperation(.event, time: time)
            encoder.encode(id)
            encoder.append(Double(encoder.string("ana-updated")))
            encoder.append(value == nil ? 1 : 2)
            encoder.append(Double(encoder.string("key-path")))
            encodeValue(.string(keyPath), into: &encoder)
            if let value {
                encoder.append(Double(encoder.string("value")))
                encodeValue(value, into: &encoder)
            }
        case .appear, .disappear:
            encoder.beginOperation(.event, time: time)
            encoder.encode(id)
            encoder.append(Double(encoder.string(op == .appear ? "ana-appeared" : "ana-disappeared")))
            encoder.append(0)
        case .deregister:
            encoder.beginOperation(.deregister, time: time)
            encoder.encode(id)
        }
        return true
    }

    private mutating func encodeRegister(id: NodeID, time: Double?, into encoder: inout OperationEncoder) -> Bool {
        let parent: NodeID?
        switch field(.parent) {
        case nil, .null?: parent = nil
        case let value?:
            guard let found = nodeID(value) else { return false }
            parent = found
        }
        guard let name = nonEmptyString(.name) else { return false }
        let index: Int?
        switch field(.index) {
        case nil, .null?: index = nil
        case let .number(number)? where Self.isSafeInteger(number): index = Int(number)
        default: return false
        }
        let namespace: Range<Int>?
        switch field(.namespace) {
        case nil, .null?: namespace = nil
        case let .string(range)?: namespace = range
        default: return false
        }
        let attributes: Range<Int>?
        switch field(.attributes) {
        case nil, .null?: attributes = nil
        case let .object(range)?: attributes = range
        default: return false
        }
        encoder.beginOperation(.register, time: time)
        encoder.encode(id)
        if let parent {
            encoder.encode(parent)
        } else {
            encoder.append(BridgeWire.IDKind.absent.rawValue)
            encoder.append(0)
        }
        encoder.append(Double(encoder.string(utf8: slice(name))))
        encoder.append(index.map(Double.init) ?? .nan)
        encoder.append(namespace.map { Double(encoder.string(utf8: slice($0))) } ?? .nan)
        if let attributes {
            encodeMembers(attributes, into: &encoder)
        } else {
            encoder.append(BridgeWire.ObjectHeader.null.rawValue)
        }
        return true
    }

    /// An object: its member count, then `key, value` pairs.
    private func encodeMembers(_ range: Range<Int>, into encoder: inout OperationEncoder) {
        encoder.append(Double(range.count))
        for member in members[range] {
            encoder.append(Double(encoder.string(utf8: slice(member.key))))
            encodeValue(member.value, into: &encoder)
        }
    }

    private func encodeValue(_ value: Value, into encoder: inout OperationEncoder) {
        switch value {
        case let .number(number):
            encoder.append(BridgeWire.ValueTag.number.rawValue)
            encoder.append(number)
        case let .string(range):
            encoder.append(BridgeWire.ValueTag.string.rawValue)
            encoder.append(Double(encoder.string(utf8: slice(range))))
        case .bool(true): encoder.append(BridgeWire.ValueTag.true.rawValue)
        case .bool(false): encoder.append(BridgeWire.ValueTag.false.rawValue)
        case .null, .object: encoder.append(BridgeWire.ValueTag.null.rawValue)  // (objects never reach here)
        }
    }

    private func nonEmptyString(_ key: Key) -> Range<Int>? {
        guard case let .string(range)? = field(key), !range.isEmpty else { return nil }
        return range
    }

    /// A plain node ID: an integer that JavaScript holds exactly.
    private func nodeID(_ value: Value?) -> NodeID? {
        guard case let .number(number)? = value, Self.isSafeInteger(number) else { return nil }
        return NodeID(Int(number))
    }

    private static func isSafeInteger(_ number: Double) -> Bool {
        number.rounded() == number && abs(number) <= Double(JSONValue.maximumSafeInteger)
    }
}

/// Whether `first` and `second` hold the same bytes.
private func equalBytes(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Bool {
    guard first.count == second.count else { return false }
    guard let one = first.baseAddress, let other = second.baseAddress else { return true }
    return memcmp(one, other, first.count) == 0
}

/// Whether `first` and `second` hold the same bytes.
private func equalBytes(_ first: [UInt8], _ second: UnsafeRawBufferPointer) -> Bool {
    first.withUnsafeBytes { equalBytes($0, second) }
}
