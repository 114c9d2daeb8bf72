import CoreJS
import OrderedCollections

/// Who a result is about and where it came from, as stamped when it was appended: the identity
/// (anonymous ID, user ID, analytics session) and the context every destination sends with it.
/// Rows share one stored envelope until any of it changes.
public struct Envelope: Sendable, Equatable {
    /// The install's anonymous ID (``OutboxIdentity/anonymousId``).
    public var anonymousId: String
    /// The user ID set by the last identify, nil before one (or after a reset).
    public var userId: String?
    /// The analytics session: when it started, in milliseconds since the epoch (Amplitude's
    /// `session_id`, PostHog's `$session_id`).
    public var sessionId: Int64?
    /// The context, under the names Segment gives it: `library`, `os`, `app`, `locale`,
    /// `timezone`, and what the app added.
    public var context: OrderedDictionary<String, JSONValue>
    /// Properties added to every track and screen (super-properties); an event's own win.
    public var superProperties: OrderedDictionary<String, JSONValue>

    /// An envelope with every field given.
    public init(
        anonymousId: String, userId: String?, sessionId: Int64?, context: OrderedDictionary<String, JSONValue>,
        superProperties: OrderedDictionary<String, JSONValue>
    ) {
        self.anonymousId = anonymousId
        self.userId = userId
        self.sessionId = sessionId
        self.context = context
        self.superProperties = superProperties
    }

    private enum Key {
        static let anonymousId = "anonymousId"
        static let userId = "userId"
        static let sessionId = "sessionId"
        static let context = "context"
        static let superProperties = "superProperties"
    }

    /// The JSON text stored in the `envelope` table.
    var jsonText: String {
        var object: OrderedDictionary<String, JSONValue> = [Key.anonymousId: .string(anonymousId)]
        if let userId { object[Key.userId] = .string(userId) }
        if let sessionId { object[Key.sessionId] = .number(Double(sessionId)) }
        object[Key.context] = .object(context)
        object[Key.superProperties] = .object(superProperties)
        return JSONValue.object(object).jsonText
    }

    /// The envelope stored as `text`.
    /// - Throws: ``UnreadableRow`` when it is not one (a damaged row).
    init(jsonText text: String) throws(UnreadableRow) {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch {
            throw UnreadableRow(description: "the envelope is not JSON: \(error)")
        }
        guard let object = value.objectValue, let anonymousId = object[Key.anonymousId]?.stringValue else {
            throw UnreadableRow(description: "the envelope has no anonymousId")
        }
        self.init(
            anonymousId: anonymousId, userId: object[Key.userId]?.stringValue,
            sessionId: object[Key.sessionId]?.safeIntegerValue.map(Int64.init),
            context: object[Key.context]?.objectValue ?? [:], superProperties: object[Key.superProperties]?.objectValue ?? [:])
    }

    /// The ID an event is attributed to: the user ID, else the anonymous ID (PostHog's
    /// `distinct_id`).
    public var distinctId: String { userId ?? anonymousId }
}

/// An envelope and its JSON text, made once per change (not per result).
final class StampedEnvelope: Sendable {
    let envelope: Envelope
    let jsonText: String

    init(_ envelope: Envelope) {
        self.envelope = envelope
        jsonText = envelope.jsonText
    }
}
