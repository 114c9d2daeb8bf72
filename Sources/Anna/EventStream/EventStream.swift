import CoreJS
import OrderedCollections

/// The NDJSON event-stream format (version 1): one module operation per line, as `anna`
/// replays and the ``Manager`` recorder writes. See `docs/event-stream.md`.
///
/// ```
/// {"op":"register","id":7,"parent":null,"name":"__root__","time":1700000000000}
/// {"op":"event","id":71,"name":"did-select","properties":{"row":3}}
/// ```
public enum EventStream {
    /// The format version this library reads and writes.
    public static let version = 1

    /// One line of a stream: what to do and, optionally, the clock for it.
    public struct Record: Sendable, Equatable {
        /// What the line asks for.
        public var command: Command
        /// The time (ms since the epoch) the core's clock shows for this operation.
        public var time: Double?

        /// Creates a record.
        public init(command: Command, time: Double? = nil) {
            self.command = command
            self.time = time
        }
    }

    /// What a line asks for.
    public enum Command: Sendable, Equatable {
        /// A module protocol operation (the `update`, `appear`, `disappear` sugar becomes an event).
        case operation(ModuleOperation)
        /// Print a snapshot.
        case snapshot
        /// The stream's format version (an optional first line).
        case version(Int)
    }

    /// Why a line is not a valid record.
    public struct FormatError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What is wrong with the line.
        public var message: String
        /// Whether no later line can be trusted either (the stream declares a newer version):
        /// a reader that skips malformed lines stops here all the same.
        public var endsStream = false
        /// Creates an error.
        public init(_ message: String) { self.message = message }
        /// The message.
        public var description: String { message }
    }

    /// Parses one line; `nil` for a blank line or a `//` comment.
    ///
    /// Beyond JSON's grammar, a line may not hold a key twice or a number too large for a
    /// double (`1e400`), and its IDs, `index` and `version` must be integers that JavaScript
    /// holds exactly (at most `JSONValue.maximumSafeInteger` in magnitude). A byte order mark
    /// is up to the reader of the stream to drop from the first line.
    /// - Throws: ``FormatError`` for bad JSON, an unknown op, a missing field or a wrong type.
    public static func parse(line: String) throws -> Record? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
        if trimmed.isEmpty || trimmed.hasPrefix("//") {
            return nil
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: line, options: [.rejectingDuplicateKeys, .rejectingInfiniteNumbers])
        } catch let error as JSONParseError {
            throw FormatError(error.kind == .syntax ? "invalid JSON at column \(error.column): \(error.reason)" : error.reason)
        }
        guard case let .object(fields) = value else { throw FormatError("a line must be a JSON object") }
        var reader = FieldReader(fields: fields)
        let op = try reader.string("op")
        let time = try reader.optionalNumber("time")
        let command: Command
        switch op {
        case "register":
            command = .operation(
                .register(
                    id: try reader.nodeID("id"), parent: try reader.optionalNodeID("parent"),
                    name: try reader.string("name"), index: try reader.optionalInteger("index"),
                    namespace: try reader.optionalString("namespace"), attributes: try reader.optionalObject("attributes")))
        case "event":
            command = .operation(
                .event(
                    id: try reader.nodeID("id"), name: try reader.string("name"),
                    properties: try reader.optionalObject("properties") ?? [:]))
        case "update":
            let id = try reader.nodeID("id")
            let keyPath = try reader.string("keyPath")
            var properties: OrderedDictionary<String, JSONValue> = [StandardEvent.keyPath: .string(keyPath)]
            if let value = reader.take("value") { properties[StandardEvent.value] = value }
            command = .operation(.event(id: id, name: StandardEvent.updated, properties: .object(properties)))
        case "appear":
            command = .operation(.event(id: try reader.nodeID("id"), name: StandardEvent.appeared, properties: [:]))
        case "disappear":
            command = .operation(.event(id: try reader.nodeID("id"), name: StandardEvent.disappeared, properties: [:]))
        case "deregister":
            command = .operation(.deregister(id: try reader.nodeID("id")))
        case "snapshot":
            command = .snapshot
        case "version":
            guard let version = try reader.optionalInteger("version") else { throw FormatError("missing field 'version'") }
            guard version <= Self.version else {
                var newer = FormatError("stream version \(version) is newer than this reader (\(Self.version))")
                newer.endsStream = true
                throw newer
            }
            command = .version(version)
        default:
            throw FormatError("unknown op '\(VisibleText(op))' (expected register, event, update, appear, disappear, deregister, snapshot, version)")
        }
        try reader.rejectUnknownFields(op: op)
        return Record(command: command, time: time)
    }

    /// The line for an operation (without a line break), in the canonical long form.
    public static func line(for operation: ModuleOperation, time: Double? = nil) -> String {
        var fields: OrderedDictionary<String, JSONValue>
        switch operation {
        case let .register(id, parent, name, index, namespace, attributes):
            fields = ["op": "register", "id": id.jsonValue, "parent": parent?.jsonValue ?? .null, "name": .string(name)]
            if let index { fields["index"] = .number(Double(index)) }
            if let namespace { fields["namespace"] = .string(namespace) }
            if let attributes { fields["attributes"] = attributes }
        case let .event(id, name, properties):
            fields = ["op": "event", "id": id.jsonValue, "name": .string(name), "properties": properties]
        case let .deregister(id):
            fields = ["op": "deregister", "id": id.jsonValue]
        }
        if let time { fields["time"] = .number(time) }
        return JSONValue.object(fields).jsonText
    }
}

/// Reads typed fields off a line's object, remembering which it used.
private struct FieldReader {
    /// What integers in a line may be: those JavaScript holds exactly.
    static let safeIntegers = "within ±\(JSONValue.maximumSafeInteger) (2^53 − 1, the integers JavaScript holds exactly)"

    var fields: OrderedDictionary<String, JSONValue>

    /// A value as a message quotes it.
    static func shown(_ value: JSONValue) -> VisibleText { VisibleText(value.jsonText) }

    /// Whether `number` is whole but past the integers JavaScript holds exactly.
    static func isUnsafeInteger(_ number: Double) -> Bool {
        number.rounded() == number && abs(number) > Double(JSONValue.maximumSafeInteger)
    }

    mutating func take(_ key: String) -> JSONValue? {
        fields.removeValue(forKey: key)
    }

    mutating func string(_ key: String) throws -> String {
        guard let value = take(key) else { throw EventStream.FormatError("missing field '\(key)'") }
        guard case let .string(text) = value, !text.isEmpty else {
            throw EventStream.FormatError("field '\(key)' must be a non-empty string, got \(Self.shown(value))")
        }
        return text
    }

    mutating func optionalString(_ key: String) throws -> String? {
        switch take(key) {
        case nil, .null?: return nil
        case let .string(text)?: return text
        case let value?: throw EventStream.FormatError("field '\(key)' must be a string or null, got \(Self.shown(value))")
        }
    }

    mutating func optionalNumber(_ key: String) throws -> Double? {
        switch take(key) {
        case nil, .null?: return nil
        case let .number(number)?: return number
        case let value?: throw EventStream.FormatError("field '\(key)' must be a number, got \(Self.shown(value))")
        }
    }

    mutating func optionalInteger(_ key: String) throws -> Int? {
        switch take(key) {
        case nil, .null?: return nil
        case let value?:
            if let integer = value.safeIntegerValue { return integer }
            if case let .number(number) = value, Self.isUnsafeInteger(number) {
                throw EventStream.FormatError("field '\(key)' must be an integer \(Self.safeIntegers), got \(Self.shown(value))")
            }
            throw EventStream.FormatError("field '\(key)' must be an integer, got \(Self.shown(value))")
        }
    }

    mutating func optionalObject(_ key: String) throws -> JSONValue? {
        switch take(key) {
        case nil, .null?: return nil
        case let value? where value.objectValue != nil: return value
        case let value?: throw EventStream.FormatError("field '\(key)' must be an object, got \(Self.shown(value))")
        }
    }

    mutating func nodeID(_ key: String) throws -> NodeID {
        guard let id = try optionalNodeID(key) else { throw EventStream.FormatError("missing field '\(key)'") }
        return id
    }

    mutating func optionalNodeID(_ key: String) throws -> NodeID? {
        switch take(key) {
        case nil, .null?: return nil
        case let value?:
            if let id = NodeID(json: value) { return id }
            let numbers = value.arrayValue ?? [value]
            if numbers.contains(where: { $0.numberValue.map(Self.isUnsafeInteger) ?? false }) {
                throw EventStream.FormatError("field '\(key)' must be a node ID of integers \(Self.safeIntegers), got \(Self.shown(value))")
            }
            throw EventStream.FormatError("field '\(key)' must be a node ID (an integer or [owner, key, …]), got \(Self.shown(value))")
        }
    }

    func rejectUnknownFields(op: String) throws {
        if let unknown = fields.keys.first {
            throw EventStream.FormatError("unknown field '\(VisibleText(unknown))' for op '\(op)'")
        }
    }
}
