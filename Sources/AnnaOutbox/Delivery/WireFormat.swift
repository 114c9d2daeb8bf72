import CoreJS
import Foundation

/// The upload body, `{"sentAt": "<ISO 8601>", "batch": [message, …]}`, each message
/// `{"messageId", "session", "seq", "time" (ISO 8601), "task", "path", "event", "result"}`:
/// the one owner of this format, used by the uploader to write it and the collector to read it.
public enum WireFormat {
    /// The field names, in the order they are written.
    public enum Field {
        /// The batch's send time.
        public static let sentAt = "sentAt"
        /// The array of messages.
        public static let batch = "batch"
        /// The message ID.
        public static let messageId = "messageId"
        /// The session.
        public static let session = "session"
        /// The sequence number in the session.
        public static let seq = "seq"
        /// When the result's event happened (ISO 8601).
        public static let time = "time"
        /// The task's pattern, or null.
        public static let task = "task"
        /// The node's path, or null.
        public static let path = "path"
        /// The event's name, or null.
        public static let event = "event"
        /// The result.
        public static let result = "result"
    }

    /// How deeply a body may nest: what the collector's JSON parser reads (CoreJS's limit).
    public static let maximumDepth = JSONValue.maximumDepth
    /// How deeply a result may nest: a body puts it 3 levels down (the body's object, the
    /// batch's array, the message's object), so deeper results are refused at append.
    public static let maximumResultDepth = maximumDepth - 3

    /// How many arrays and objects `value` nests (0 for a scalar, 1 for `[1]`).
    static func depth(of value: JSONValue) -> Int {
        var deepest = 0
        var stack: [(JSONValue, Int)] = [(value, 0)]
        while let (item, level) = stack.popLast() {
            switch item {
            case let .array(elements):
                deepest = max(deepest, level + 1)
                for element in elements { stack.append((element, level + 1)) }
            case let .object(members):
                deepest = max(deepest, level + 1)
                for member in members.values { stack.append((member, level + 1)) }
            default:
                continue
            }
        }
        return deepest
    }

    /// A body's bytes beyond its messages' (the `sentAt` and brackets).
    static let envelopeBytes = 64
    /// The bytes a message takes in a body beyond its strings' own.
    static let messageOverheadBytes = 120

    /// A message's size in a body, near enough for caps and batch limits (strings are
    /// counted unescaped).
    static func estimatedBytes(of message: OutboxMessage) -> Int {
        messageOverheadBytes + message.messageId.utf8.count + message.session.utf8.count
            + (message.task?.utf8.count ?? 0) + (message.path?.utf8.count ?? 0) + (message.event?.utf8.count ?? 0)
            + message.result.utf8.count
    }

    /// The body of `messages`, sent at `sentAt`. Every result must already be valid JSON text
    /// (rows are checked as they are read); strings are escaped here.
    public static func encode(_ messages: [OutboxMessage], sentAt: Date) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(messages.reduce(envelopeBytes) { $0 + estimatedBytes(of: $1) })
        func append(_ text: String) { body.append(contentsOf: text.utf8) }
        func appendString(_ text: String?) { append(text.map { JSONValue.string($0).jsonText } ?? "null") }
        append("{\"\(Field.sentAt)\":\"\(iso8601(sentAt))\",\"\(Field.batch)\":[")
        for (index, message) in messages.enumerated() {
            if index > 0 { append(",") }
            append("{\"\(Field.messageId)\":")
            appendString(message.messageId)
            append(",\"\(Field.session)\":")
            appendString(message.session)
            append(",\"\(Field.seq)\":\(message.seq),\"\(Field.time)\":\"\(iso8601(milliseconds: message.time))\",\"\(Field.task)\":")
            appendString(message.task)
            append(",\"\(Field.path)\":")
            appendString(message.path)
            append(",\"\(Field.event)\":")
            appendString(message.event)
            append(",\"\(Field.result)\":")
            append(message.result)
            append("}")
        }
        append("]}")
        return body
    }

    /// A body that does not have the shape above.
    public struct MalformedBody: Error, CustomStringConvertible {
        /// What is wrong, naming the field.
        public var description: String
    }

    /// Reads a body.
    /// - Throws: ``MalformedBody`` naming what is wrong.
    /// Each message's `time` is read to the millisecond and its `result` re-encoded as compact JSON text.
    public static func decode(_ bytes: [UInt8]) throws(MalformedBody) -> (sentAt: String, batch: [OutboxMessage]) {
        let value: JSONValue
        do {
            value = try bytes.withUnsafeBufferPointer { try JSONValue(parsingUTF8: $0) }
        } catch {
            throw MalformedBody(description: "the body is not JSON: \(error)")
        }
        guard let object = value.objectValue else { throw MalformedBody(description: "the body is not an object") }
        guard let sentAt = object[Field.sentAt]?.stringValue, parseISO8601(sentAt) != nil else {
            throw MalformedBody(description: "sentAt is missing or not an ISO 8601 time")
        }
        guard let batch = object[Field.batch]?.arrayValue else { throw MalformedBody(description: "batch is not an array") }
        var messages: [OutboxMessage] = []
        for (index, element) in batch.enumerated() {
            guard let fields = element.objectValue else { throw MalformedBody(description: "batch[\(index)] is not an object") }
            func optionalString(_ name: String) throws(MalformedBody) -> String? {
                switch fields[name] {
                case nil, .null?: return nil
                case let .string(text)?: return text
                default: throw MalformedBody(description: "batch[\(index)].\(name) is not a string or null")
                }
            }
            guard let messageId = fields[Field.messageId]?.stringValue, !messageId.isEmpty else {
                throw MalformedBody(description: "batch[\(index)].messageId is missing")
            }
            guard let session = fields[Field.session]?.stringValue else {
                throw MalformedBody(description: "batch[\(index)].session is missing")
            }
            guard let seq = fields[Field.seq]?.safeIntegerValue else {
                throw MalformedBody(description: "batch[\(index)].seq is not an integer")
            }
            guard let time = fields[Field.time]?.stringValue.flatMap(milliseconds(iso8601:)) else {
                throw MalformedBody(description: "batch[\(index)].time is not an ISO 8601 time")
            }
            guard let result = fields[Field.result] else { throw MalformedBody(description: "batch[\(index)].result is missing") }
            messages.append(
                OutboxMessage(
                    messageId: messageId, session: session, seq: Int64(seq), time: time, task: try optionalString(Field.task),
                    path: try optionalString(Field.path), event: try optionalString(Field.event), result: result.jsonText))
        }
        return (sentAt, messages)
    }

    /// `2024-05-01T12:00:00.123Z`.
    static func iso8601(_ date: Date) -> String {
        iso8601(milliseconds: date.timeIntervalSince1970 * 1000)
    }

    /// `2024-05-01T12:00:00.123Z` for a time in milliseconds since the epoch (UTC, by
    /// `gmtime_r`: several times faster than a format style, and it runs once per message).
    package static func iso8601(milliseconds: Double) -> String {
        let whole = milliseconds.isFinite ? Int64(max(-62_135_596_800_000, min(253_402_300_799_999, milliseconds)).rounded(.down)) : 0
        var seconds = time_t(whole >= 0 ? whole / 1000 : (whole - 999) / 1000)
        let millis = Int(whole - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(parts.tm_year + 1900, 4) + "-" + padded(parts.tm_mon + 1, 2) + "-" + padded(parts.tm_mday, 2) + "T"
            + padded(parts.tm_hour, 2) + ":" + padded(parts.tm_min, 2) + ":" + padded(parts.tm_sec, 2) + "."
            + padded(Int32(millis), 3) + "Z"
    }

    static func parseISO8601(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    /// An ISO 8601 time with fractional seconds (as ``iso8601(milliseconds:)`` writes it) in
    /// milliseconds since the epoch, to the nearest millisecond; nil when `text` is not one.
    package static func milliseconds(iso8601 text: String) -> Double? {
        parseISO8601(text).map { ($0.timeIntervalSince1970 * 1000).rounded() }
    }
}
