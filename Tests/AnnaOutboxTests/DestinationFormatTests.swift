import Anna
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Crypto
import Foundation
import OrderedCollections
import Testing

/// What the destination suites share (`DestinationFormatTests`, `VendorAnswerTests`,
/// `OutboxIdentityTests`, `FanOutTests`): a transport that records every request, the
/// vendors' bodies taken apart, and HMAC-SHA256 to check signatures.
enum DestinationKit {
    /// One request as the transport received it.
    struct Request: Sendable {
        var body: [UInt8]
        var headers: [(String, String)]

        /// The value of header `name` (case-insensitive), nil when absent.
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        /// The headers named `name` (case-insensitive).
        func headers(_ name: String) -> [String] {
            headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
        }

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The body parsed (`.null` when it is not JSON: a gzip body, say).
        var json: JSONValue { (try? JSONValue(parsing: text)) ?? .null }

        /// The events of a Segment, webhook or PostHog body (`batch`) or an Amplitude one (`events`).
        var events: [JSONValue] { (json["batch"] ?? json["events"])?.arrayValue ?? [] }

        /// Each event's ID as the vendor sees it: Segment's `messageId`, Amplitude's `insert_id`.
        var ids: [String] { events.compactMap { ($0["messageId"] ?? $0["insert_id"])?.stringValue } }
    }

    /// Records every request and answers it `answer(number, body)` (number from 0); fails
    /// with a network error when `answer` returns nil.
    final class Transport: UploadTransport {
        struct Unreachable: Error {}
        private let log = Locked<[Request]>([])
        private let answer: @Sendable (Int, [UInt8]) -> UploadResponse?

        init(answer: @escaping @Sendable (_ number: Int, _ body: [UInt8]) -> UploadResponse? = { _, _ in UploadResponse(status: 200) }) {
            self.answer = answer
        }

        /// Answers every request `status`.
        convenience init(status: Int, body: String = "{}") {
            self.init { _, _ in UploadResponse(status: status, body: body) }
        }

        var requests: [Request] { log.withLock { $0 } }

        func send(body: [UInt8], headers: [(String, String)]) async throws -> UploadResponse {
            let number = log.withLock { log in
                log.append(Request(body: body, headers: headers))
                return log.count - 1
            }
            guard let response = answer(number, body) else { throw Unreachable() }
            return response
        }
    }

    /// An uploader of `outbox` in `format` to `url` through `transport`, backing off through
    /// `sleeper` (1 ms a wait) with no jitter.
    static func uploader(
        _ outbox: Outbox, _ format: DeliveryFormat, transport: Transport, sleeper: RecordingSleeper,
        url: String = "http://127.0.0.1:9/v1/batch", configure: (inout UploadConfiguration) -> Void = { _ in }
    ) throws -> OutboxUploader {
        var configuration = UploadConfiguration(url: url, format: format)
        configure(&configuration)
        return try OutboxUploader(outbox: outbox, configuration: configuration, transport: transport, sleep: sleeper.sleep, random: { 0 })
    }

    /// Appends `value` under `session` at `time` (ms) with the meta of task `t/e`, and writes it.
    static func append(_ outbox: Outbox, _ value: JSONValue, session: String = "s1", time: Double, task: String = "t/e") throws {
        try outbox.append(AnalyticsResult(value: value, meta: ResultMeta(task: task, path: "/p", event: "e")), session: session, time: time)
        outbox.synchronize()
    }

    /// Now in whole milliseconds since the epoch, less `days`.
    static func milliseconds(daysAgo days: Double = 0) -> Double {
        (Date().timeIntervalSince1970 * 1000 - days * 86_400_000).rounded()
    }

    /// `2024-05-01T12:00:00.123+00:00` for a whole number of milliseconds, computed here
    /// independently of the outbox's own formatter.
    static func timestamp(milliseconds: Double) -> String {
        let ms = Int64(milliseconds)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        let seconds = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(ms / 1000)))
        return seconds + String(format: ".%03lld", ms % 1000) + "+00:00"
    }

    /// The keys of an object, in order.
    static func keys(_ value: JSONValue?) -> [String] { value?.objectValue.map { Array($0.keys) } ?? [] }

    /// HMAC-SHA256 of `message` with `key` (swift-crypto's, checked against RFC 4231 below).
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// What each vendor's request looks like: path, headers, body shape, and how results map to
/// track, screen and identify calls, with the event's own time, the identity and the context.
@Suite(.timeLimit(.minutes(2))) struct DestinationFormatTests {
    typealias Kit = DestinationKit

    /// A track, a screen, an identify, a plain object with `event`, and a scalar, at times a month ago.
    static let monthAgo = Kit.milliseconds(daysAgo: 30)

    static func appendTheFiveKinds(_ outbox: Outbox) throws {
        try Kit.append(outbox, ["type": "track", "event": "Added", "properties": ["sku": "A1", "qty": 2]], time: monthAgo)
        try Kit.append(outbox, ["type": "screen", "name": "Home", "properties": ["tab": "top"]], time: monthAgo + 1000)
        try Kit.append(outbox, ["type": "identify", "userId": "user-42", "traits": ["plan": "pro"]], time: monthAgo + 2000)
        try Kit.append(outbox, ["event": "x", "a": 1], time: monthAgo + 3000)
        try Kit.append(outbox, 42, time: monthAgo + 4000, task: "cart/badge")
    }

    @Test func theHMACOfTheseTestsMatchesTheKnownVectors() {
        // RFC 4231 test case 2 ("Jefe").
        #expect(
            Kit.hex(Kit.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // A key longer than a block is hashed first (RFC 4231 test case 6).
        #expect(
            Kit.hex(
                Kit.hmacSHA256(
                    key: [UInt8](repeating: 0xaa, count: 131),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func segmentBatchesWithBasicAuthAndMapsEachKindOfResult() async throws {
        let rig = try Rig()
        try Self.appendTheFiveKinds(rig.outbox)
        let transport = Kit.Transport()
        let uploader = try Kit.uploader(
            rig.outbox, .segment, transport: transport, sleeper: rig.sleeper, url: "http://127.0.0.1:9/v1/batch"
        ) { $0.apiKey = "wk_123" }
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        let request = try #require(transport.requests.first)
        #expect(transport.requests.count == 1)
        #expect(request.header("Authorization") == "Basic " + Data("wk_123:".utf8).base64EncodedString())
        #expect(request.header("Authorization") == "Basic d2tfMTIzOg==")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Content-Encoding") == nil)
        #expect(request.header("X-Anna-Signature") == nil)
        let body = request.json
        #expect(Kit.keys(body).sorted() == ["batch", "sentAt", "writeKey"])
        #expect(body["writeKey"] == "wk_123")
        let sentAt = try #require(body["sentAt"]?.stringValue)
        #expect(sentAt.hasSuffix("+00:00") && sentAt.count == "2024-05-01T12:00:00.123+00:00".count, "\(sentAt)")

        let events = request.events
        try #require(events.count == 5, "\(request.text)")
        let anonymousId = rig.outbox.identity.anonymousId
        for (index, event) in events.enumerated() {
            #expect(event["messageId"] == .string("s1#\(index)"))
            #expect(event["timestamp"] == .string(Kit.timestamp(milliseconds: Self.monthAgo + Double(index) * 1000)), "the event's time")
            #expect(event["anonymousId"] == .string(anonymousId))
            #expect(event["integrations"] == .object([:]))
            #expect(event["context"]?["library"]?["name"] == "anna-linux")
            #expect(event["context"]?["os"]?["name"] == "Linux")
            #expect(event["context"]?["app"] == nil, "no app configured")
        }
        // track
        #expect(events[0]["type"] == "track" && events[0]["event"] == "Added")
        #expect(events[0]["properties"] == ["sku": "A1", "qty": 2])
        #expect(events[0]["userId"] == .null, "userId is present and null before the identify")
        // screen
        #expect(events[1]["type"] == "screen" && events[1]["name"] == "Home")
        #expect(events[1]["category"] == .null && events[1].objectValue?.keys.contains("category") == true)
        #expect(events[1]["properties"] == ["tab": "top"])
        // identify: the identify carries its own user ID, traits and no properties
        #expect(events[2]["type"] == "identify" && events[2]["userId"] == "user-42")
        #expect(events[2]["traits"] == ["plan": "pro"])
        #expect(events[2]["properties"] == nil)
        // a plain object with `event`: a track of that name with the other members
        #expect(events[3]["type"] == "track" && events[3]["event"] == "x")
        #expect(events[3]["properties"] == ["a": 1])
        #expect(events[3]["userId"] == "user-42", "results after the identify carry its user ID")
        // a scalar: a track named by the task's pattern, with the value
        #expect(events[4]["type"] == "track" && events[4]["event"] == "cart/badge")
        #expect(events[4]["properties"] == ["value": 42])
    }

    @Test func postHogPutsTheKeyInTheBodyAndMapsEachKindOfResult() async throws {
        let rig = try Rig()
        try Self.appendTheFiveKinds(rig.outbox)
        let transport = Kit.Transport()
        let uploader = try Kit.uploader(
            rig.outbox, .posthog, transport: transport, sleeper: rig.sleeper, url: "http://127.0.0.1:9/batch/"
        ) { $0.apiKey = "phc_key" }
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        try #require(transport.requests.count == 1)
        let request = transport.requests[0]
        #expect(request.header("Authorization") == nil)
        #expect(request.header("Content-Type") == "application/json")
        let body = request.json
        #expect(Kit.keys(body).sorted() == ["api_key", "batch", "historical_migration", "sent_at"])
        #expect(body["api_key"] == "phc_key" && body["historical_migration"] == false)
        let events = request.events
        try #require(events.count == 5, "\(request.text)")
        let anonymousId = rig.outbox.identity.anonymousId
        for (index, event) in events.enumerated() {
            #expect(event["timestamp"] == .string(Kit.timestamp(milliseconds: Self.monthAgo + Double(index) * 1000)))
            let uuid = try #require(event["uuid"]?.stringValue)
            #expect(UUID(uuidString: uuid) != nil && uuid == uuid.lowercased(), "\(uuid)")
            #expect(event["properties"]?["$lib"] == "anna-linux")
            #expect(event["properties"]?["$os"] == "Linux")
            #expect(event["properties"]?["$geoip_disable"] == true)
        }
        #expect(Set(events.compactMap { $0["uuid"]?.stringValue }).count == 5, "one UUID per message")
        #expect(events[0]["event"] == "Added" && events[0]["distinct_id"] == .string(anonymousId))
        #expect(events[0]["properties"]?["sku"] == "A1" && events[0]["properties"]?["qty"] == 2)
        #expect(events[1]["event"] == "$screen" && events[1]["properties"]?["$screen_name"] == "Home")
        #expect(events[1]["properties"]?["tab"] == "top")
        #expect(events[2]["event"] == "$identify" && events[2]["distinct_id"] == "user-42")
        #expect(events[2]["properties"]?["$anon_distinct_id"] == .string(anonymousId))
        #expect(events[2]["properties"]?["$set"] == ["plan": "pro"])
        #expect(events[3]["event"] == "x" && events[3]["properties"]?["a"] == 1)
        #expect(events[3]["distinct_id"] == "user-42", "after the identify, the user ID")
        #expect(events[4]["event"] == "cart/badge" && events[4]["properties"]?["value"] == 42)
    }

    @Test func postHogsUUIDIsTheSameEachTimeAMessageIsSent() async throws {
        let rig = try Rig()
        try Kit.append(rig.outbox, ["event": "x", "a": 1], time: Self.monthAgo)
        try Kit.append(rig.outbox, ["event": "y"], time: Self.monthAgo + 1)
        // A first uploader is refused (its key), a second one sends the same rows again: each
        // encodes them afresh from the file.
        let refusing = Kit.Transport(status: 401)
        let first = try Kit.uploader(rig.outbox, .posthog, transport: refusing, sleeper: rig.sleeper) { $0.apiKey = "k" }
        guard case .stopped = await first.flush(timeout: Rig.drainDeadline) else {
            Issue.record("the refused flush did not stop")
            return
        }
        let accepting = Kit.Transport()
        let second = try Kit.uploader(rig.outbox, .posthog, transport: accepting, sleeper: rig.sleeper) { $0.apiKey = "k" }
        #expect(await second.flush(timeout: Rig.drainDeadline) == .empty)
        let before = try #require(refusing.requests.first).events.compactMap { $0["uuid"]?.stringValue }
        let after = try #require(accepting.requests.first).events.compactMap { $0["uuid"]?.stringValue }
        #expect(before.count == 2 && before == after, "\(before) then \(after)")
        #expect(before.first != before.last)
        for uuid in before {
            let characters = Array(uuid)
            #expect(characters[14] == "5", "a name-based (version 5) UUID: \(uuid)")
            #expect("89ab".contains(characters[19]), "RFC 9562 variant: \(uuid)")
        }
    }

    @Test func amplitudeSendsIntegerTimesInsertIdsAndTrimmedProperties() async throws {
        let rig = try Rig()
        let long = String(repeating: "é", count: 1025)
        try Kit.append(
            rig.outbox, ["event": "Added", "properties": ["long": .string(long), "gone": .null, "kept": ["inner": .null]]],
            time: Self.monthAgo + 123)
        try Kit.append(rig.outbox, ["type": "screen", "name": "Home"], time: Self.monthAgo + 2000)
        try Kit.append(rig.outbox, ["type": "identify", "userId": "user-42", "traits": ["plan": "pro", "none": .null]], time: Self.monthAgo + 3000)
        try Kit.append(rig.outbox, ["event": "after"], time: Self.monthAgo + 4000)
        let transport = Kit.Transport()
        let uploader = try Kit.uploader(
            rig.outbox, .amplitude, transport: transport, sleeper: rig.sleeper, url: "http://127.0.0.1:9/2/httpapi"
        ) { $0.apiKey = "amp_key" }
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        try #require(transport.requests.count == 1)
        let request = transport.requests[0]
        #expect(request.header("Content-Type") == "application/json; charset=UTF-8")
        #expect(request.header("Authorization") == nil)
        let body = request.json
        #expect(Kit.keys(body).sorted() == ["api_key", "events"])
        #expect(body["api_key"] == "amp_key")
        let events = request.events
        try #require(events.count == 4, "\(request.text)")
        let anonymousId = rig.outbox.identity.anonymousId
        // `time`: an integer of milliseconds, the event's own.
        let expectedTime = Int64(Self.monthAgo + 123)
        #expect(request.text.contains(#""time":\#(expectedTime),"#), "written as an integer: \(request.text.prefix(600))")
        #expect(events[0]["time"]?.safeIntegerValue == Int(expectedTime))
        for (index, event) in events.enumerated() {
            #expect(event["insert_id"] == .string("s1#\(index)"))
            #expect(event["device_id"] == .string(anonymousId))
            #expect(event["platform"] == "Linux" && event["os_name"] == "Linux")
            #expect(event["library"] == .string("anna-linux/\(AnnaLibrary.version)"))
        }
        #expect(events[0]["event_type"] == "Added")
        let properties = try #require(events[0]["event_properties"]?.objectValue)
        #expect(properties["gone"] == nil, "a top-level null is left out")
        #expect(properties["kept"] == ["inner": .null], "a nested null stays")
        #expect(properties["long"]?.stringValue == String(repeating: "é", count: 1024), "cut to 1,024 characters")
        #expect(events[0].objectValue?.keys.contains("user_id") == false, "no user_id before the identify")
        #expect(events[1]["event_type"] == "[Amplitude] Screen Viewed")
        #expect(events[1]["event_properties"]?["[Amplitude] Screen Name"] == "Home")
        #expect(events[2]["event_type"] == "$identify" && events[2]["user_id"] == "user-42")
        #expect(events[2]["user_properties"] == ["$set": ["plan": "pro", "none": .null]])
        #expect(events[2]["event_properties"] == nil)
        #expect(events[3]["user_id"] == "user-42")
    }

    @Test(arguments: [DeliveryFormat.segment, .posthog, .amplitude])
    func superPropertiesAreMergedAndTheEventsOwnWin(_ format: DeliveryFormat) async throws {
        var configuration = OutboxConfiguration()
        configuration.superProperties = ["plan": "free", "shared": "super"]
        let rig = try Rig(configuration: configuration)
        try Kit.append(rig.outbox, ["event": "x", "shared": "own", "a": 1], time: Self.monthAgo)
        rig.outbox.identity.register(superProperties: ["later": true, "plan": .null])
        try Kit.append(rig.outbox, ["event": "y"], time: Self.monthAgo + 1)
        let transport = Kit.Transport()
        let uploader = try Kit.uploader(rig.outbox, format, transport: transport, sleeper: rig.sleeper) { $0.apiKey = "key" }
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        let events = try #require(transport.requests.first).events
        try #require(events.count == 2)
        func properties(_ event: JSONValue) -> JSONValue? { event["properties"] ?? event["event_properties"] }
        let first = properties(events[0])
        #expect(first?["plan"] == "free" && first?["shared"] == "own" && first?["a"] == 1, "\(String(describing: first))")
        let second = properties(events[1])
        #expect(second?["later"] == true, "registered after the first result: \(String(describing: second))")
        #expect(second?["plan"] == nil, "a null super-property removes it")
        #expect(second?["shared"] == "super")
        #expect(first?["later"] == nil, "results appended before keep what they were stamped with")
    }

    @Test func theAppGoesInEveryFormatsContext() async throws {
        var configuration = OutboxConfiguration()
        configuration.app = AppInfo(name: "Shop", version: "1.2.3", build: "45")
        configuration.context = ["device": ["model": "kiosk"]]
        configuration.destinations = ["segment", "posthog", "amplitude"]
        let rig = try Rig(configuration: configuration)
        try Kit.append(rig.outbox, ["event": "x"], time: Self.monthAgo)
        var events: [DeliveryFormat: JSONValue] = [:]
        for format in [DeliveryFormat.segment, .posthog, .amplitude] {
            let transport = Kit.Transport()
            let uploader = try Kit.uploader(rig.outbox, format, transport: transport, sleeper: rig.sleeper) { configuration in
                configuration.apiKey = "key"
                configuration.destination = format.rawValue
            }
            #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
            events[format] = try #require(transport.requests.first?.events.first, "\(format)")
        }
        #expect(events[.segment]?["context"]?["app"] == ["name": "Shop", "version": "1.2.3", "build": "45"])
        #expect(events[.segment]?["context"]?["device"] == ["model": "kiosk"], "the configured context")
        #expect(events[.posthog]?["properties"]?["$app_name"] == "Shop")
        #expect(events[.posthog]?["properties"]?["$app_version"] == "1.2.3")
        #expect(events[.amplitude]?["app_version"] == "1.2.3")
    }

    @Test func aWebhookSendsSegmentsBodyWithItsHeadersAndASignatureOfTheBody() async throws {
        let rig = try Rig()
        try Self.appendTheFiveKinds(rig.outbox)
        let transport = Kit.Transport()
        let uploader = try Kit.uploader(
            rig.outbox, .webhook, transport: transport, sleeper: rig.sleeper, url: "http://127.0.0.1:9/hooks/anna"
        ) { configuration in
            configuration.headers = [(name: "X-Token", value: "t0ken"), (name: "X-Team", value: "blue")]
            configuration.signingSecret = "s3cret"
        }
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        try #require(transport.requests.count == 1)
        let request = transport.requests[0]
        #expect(request.header("X-Token") == "t0ken" && request.header("X-Team") == "blue")
        #expect(request.header("Authorization") == nil, "no vendor's auth")
        #expect(request.header("Content-Type") == "application/json")
        #expect(Kit.keys(request.json).sorted() == ["batch", "sentAt"], "Segment's body; no key was given")
        #expect(request.events.map { $0["type"] } == ["track", "screen", "identify", "track", "track"])
        let expected = "sha256=" + Kit.hex(Kit.hmacSHA256(key: Array("s3cret".utf8), message: request.body))
        #expect(request.headers("X-Anna-Signature") == [expected])
    }

    @Test func aGzippedBodyIsSignedAsSent() async throws {
        let rig = try Rig()
        try Self.appendTheFiveKinds(rig.outbox)
        let transport = Kit.Transport()
        let uploader = try Kit.uploader(rig.outbox, .webhook, transport: transport, sleeper: rig.sleeper) { configuration in
            configuration.gzip = true
            configuration.signingSecret = "s3cret"
        }
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        let request = try #require(transport.requests.first)
        #expect(request.header("Content-Encoding") == "gzip")
        #expect(Array(request.body.prefix(2)) == [0x1f, 0x8b], "a gzip stream")
        let expected = "sha256=" + Kit.hex(Kit.hmacSHA256(key: Array("s3cret".utf8), message: request.body))
        #expect(request.header("X-Anna-Signature") == expected, "the HMAC of the compressed bytes")
    }
}
