import Anna
import CoreJS
import Foundation
import OrderedCollections

/// One result as a vendor's event, and a batch of events as the vendor's request body
/// (docs/destinations.md has the table): the one owner of the Segment, PostHog and Amplitude
/// formats. Anna's own body is ``WireFormat``'s.
struct DestinationEncoder: Sendable {
    /// Why one result cannot be sent in this format: set aside as a dead letter, with the reason.
    struct Refusal: Error, Equatable {
        /// What kind of refusal, said once per uploader (`tooLarge`, `shortUserId`, …).
        var kind: String
        /// The reason in words, kept with the dead letter.
        var reason: String
    }

    let format: DeliveryFormat
    let apiKey: String?
    /// The most bytes one encoded event may take.
    let maximumEventBytes: Int

    /// The event text of `message`, stamped with `envelope`.
    /// - Throws: ``Refusal`` when the event is larger than the vendor takes, or (Amplitude)
    ///   its user and device IDs are shorter than 5 characters.
    func event(_ message: OutboxMessage, envelope: Envelope) throws(Refusal) -> String {
        let value: JSONValue
        do { value = try JSONValue(parsing: message.result) } catch {
            throw Refusal(kind: "notJSON", reason: "the result is not JSON: \(error)")  // rows are checked as read: a defect
        }
        let meta = message.task.map { ResultMeta(task: $0, path: message.path ?? "", event: message.event ?? "") }
        let call = AnalyticsCall(AnalyticsResult(value: value, meta: meta))
        let event: JSONValue
        switch format {
        case .anna: throw Refusal(kind: "anna", reason: "Anna's own format is not encoded per event")
        case .segment, .webhook: event = segment(call, message: message, envelope: envelope)
        case .posthog: event = posthog(call, message: message, envelope: envelope)
        case .amplitude: event = try amplitude(call, message: message, envelope: envelope)
        }
        let text = event.jsonText
        let bytes = text.utf8.count
        guard bytes <= maximumEventBytes else {
            throw Refusal(
                kind: "tooLarge", reason: "the event takes \(bytes) bytes, more than \(format.vendor)'s \(maximumEventBytes) per event")
        }
        return text
    }

    /// The request body of `events` (texts from ``event(_:envelope:)``), sent at `sentAt`.
    func body(_ events: [String], sentAt: Date) -> [UInt8] {
        let sent = JSONValue.string(Self.timestamp(milliseconds: sentAt.timeIntervalSince1970 * 1000)).jsonText
        let key = JSONValue.string(apiKey ?? "").jsonText
        let list = "[" + events.joined(separator: ",") + "]"
        switch format {
        case .segment, .webhook, .anna:
            let writeKey = apiKey == nil ? "" : ",\"writeKey\":" + key
            return Array("{\"batch\":\(list),\"sentAt\":\(sent)\(writeKey)}".utf8)
        case .posthog:
            return Array("{\"api_key\":\(key),\"batch\":\(list),\"historical_migration\":false,\"sent_at\":\(sent)}".utf8)
        case .amplitude:
            return Array("{\"api_key\":\(key),\"events\":\(list)}".utf8)
        }
    }

    /// The headers the vendor needs: its content type and, for Segment, the write key as the
    /// Basic auth user.
    var headers: [(String, String)] {
        switch format {
        case .segment:
            let credentials = Data((apiKey ?? "").utf8 + [UInt8(ascii: ":")]).base64EncodedString()
            return [("Content-Type", "application/json"), ("Authorization", "Basic \(credentials)")]
        case .amplitude:
            return [("Content-Type", "application/json; charset=UTF-8")]
        case .anna, .posthog, .webhook:
            return [("Content-Type", "application/json")]
        }
    }

    /// `2024-05-01T12:00:00.123+00:00`: ISO 8601 to the millisecond, as the vendors' SDKs write it.
    static func timestamp(milliseconds: Double) -> String {
        String(WireFormat.iso8601(milliseconds: milliseconds).dropLast()) + "+00:00"
    }

    /// The event's properties: the super-properties, then its own (which win).
    private static func properties(
        _ own: OrderedDictionary<String, JSONValue>, envelope: Envelope
    ) -> OrderedDictionary<String, JSONValue> {
        var properties = envelope.superProperties
        for (key, value) in own { properties[key] = value }
        return properties
    }

    // MARK: - Segment

    private func segment(_ call: AnalyticsCall, message: OutboxMessage, envelope: Envelope) -> JSONValue {
        var event: OrderedDictionary<String, JSONValue> = [
            "type": "track", "messageId": .string(message.messageId),
            "timestamp": .string(Self.timestamp(milliseconds: message.time)),
            "anonymousId": .string(envelope.anonymousId), "userId": envelope.userId.map(JSONValue.string) ?? .null,
            "context": .object(envelope.context), "integrations": [:],
        ]
        switch call {
        case let .track(name, properties):
            event["event"] = .string(name)
            event["properties"] = .object(Self.properties(properties, envelope: envelope))
        case let .screen(name, properties):
            event["type"] = "screen"
            event["name"] = .string(name)
            event["category"] = .null
            event["properties"] = .object(Self.properties(properties, envelope: envelope))
        case let .identify(userId, traits):
            event["type"] = "identify"
            event["userId"] = .string(userId)
            event["traits"] = .object(traits)
        }
        return .object(event)
    }

    // MARK: - PostHog

    private func posthog(_ call: AnalyticsCall, message: OutboxMessage, envelope: Envelope) -> JSONValue {
        var properties: OrderedDictionary<String, JSONValue>
        var name: String
        var distinctId = envelope.distinctId
        switch call {
        case let .track(event, own):
            (name, properties) = (event, Self.properties(own, envelope: envelope))
        case let .screen(screen, own):
            (name, properties) = ("$screen", Self.properties(own, envelope: envelope))
            properties["$screen_name"] = .string(screen)
        case let .identify(userId, traits):
            (name, properties, distinctId) = ("$identify", [:], userId)
            properties["$anon_distinct_id"] = .string(envelope.anonymousId)
            properties["$set"] = .object(traits)
        }
        // The context, under PostHog's names; as its SDKs do, these win over the event's own.
        let context = envelope.context
        if let app = context["app"]?.objectValue {
            if let appName = app["name"] { properties["$app_name"] = appName }
            if let version = app["version"] { properties["$app_version"] = version }
        }
        if let locale = context["locale"] { properties["$locale"] = locale }
        if let timezone = context["timezone"] { properties["$timezone"] = timezone }
        properties["$os"] = context["os"]?.objectValue?["name"] ?? "Linux"
        properties["$os_version"] = .string(OSRelease.current.version)
        if !OSRelease.current.name.isEmpty { properties["$os_distro"] = .string(OSRelease.current.name) }
        properties["$lib"] = .string(AnnaLibrary.name)
        properties["$lib_version"] = .string(AnnaLibrary.version)
        properties["$geoip_disable"] = true
        if let session = envelope.sessionId { properties["$session_id"] = .string(String(session)) }
        return [
            "event": .string(name), "distinct_id": .string(distinctId),
            "timestamp": .string(Self.timestamp(milliseconds: message.time)), "uuid": .string(StableUUID.make(message.messageId)),
            "properties": .object(properties),
        ]
    }

    // MARK: - Amplitude

    /// The longest string Amplitude keeps (its SDKs cut longer ones).
    static let amplitudeMaximumString = 1024
    /// The shortest user or device ID Amplitude accepts.
    static let amplitudeMinimumID = 5

    private func amplitude(_ call: AnalyticsCall, message: OutboxMessage, envelope: Envelope) throws(Refusal) -> JSONValue {
        var event: OrderedDictionary<String, JSONValue> = [:]
        var userId = envelope.userId
        switch call {
        case let .track(name, own):
            event["event_type"] = .string(name)
            event["event_properties"] = Self.amplitudeProperties(Self.properties(own, envelope: envelope))
        case let .screen(name, own):
            var properties = Self.properties(own, envelope: envelope)
            properties["[Amplitude] Screen Name"] = .string(name)
            event["event_type"] = "[Amplitude] Screen Viewed"
            event["event_properties"] = Self.amplitudeProperties(properties)
        case let .identify(identified, traits):
            userId = identified
            event["event_type"] = "$identify"
            event["user_properties"] = ["$set": Self.amplitudeTrimmed(.object(traits))]
        }
        let deviceUsable = envelope.anonymousId.count >= Self.amplitudeMinimumID
        if let id = userId, id.count < Self.amplitudeMinimumID {
            throw Refusal(
                kind: "shortUserId", reason: "Amplitude refuses user IDs shorter than \(Self.amplitudeMinimumID) characters (\"\(id)\")")
        }
        guard userId != nil || deviceUsable else {
            throw Refusal(
                kind: "shortDeviceId",
                reason: "Amplitude refuses device IDs shorter than \(Self.amplitudeMinimumID) characters (\"\(envelope.anonymousId)\")")
        }
        if deviceUsable { event["device_id"] = .string(envelope.anonymousId) }
        if let userId { event["user_id"] = .string(userId) }
        event["time"] = .number(message.time.rounded())
        event["insert_id"] = .string(message.messageId)
        event["library"] = .string("\(AnnaLibrary.name)/\(AnnaLibrary.version)")
        let context = envelope.context
        if let version = context["app"]?.objectValue?["version"] { event["app_version"] = version }
        let osName = context["os"]?.objectValue?["name"] ?? "Linux"
        event["platform"] = osName
        event["os_name"] = osName
        if let osVersion = context["os"]?.objectValue?["version"] { event["os_version"] = osVersion }
        if let locale = context["locale"] { event["language"] = locale }
        if let session = envelope.sessionId { event["session_id"] = .number(Double(session)) }
        return .object(event)
    }

    /// Properties as Amplitude's SDKs send them: top-level nulls left out, then trimmed.
    private static func amplitudeProperties(_ properties: OrderedDictionary<String, JSONValue>) -> JSONValue {
        amplitudeTrimmed(.object(properties.filter { $0.value != .null && !$0.value.isUndefined }))
    }

    /// `value` with strings cut to 1,024 characters and objects of more than 1,024 keys
    /// emptied, as Amplitude's SDKs send it.
    private static func amplitudeTrimmed(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .string(text) where text.count > amplitudeMaximumString:
            return .string(String(text.prefix(amplitudeMaximumString)))
        case let .array(elements):
            return .array(elements.map(amplitudeTrimmed))
        case let .object(members):
            return members.count > amplitudeMaximumString ? .object([:]) : .object(members.mapValues(amplitudeTrimmed))
        default:
            return value
        }
    }
}
