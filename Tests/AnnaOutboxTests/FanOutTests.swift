import Anna
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// One outbox, two destinations: each result is a row per destination, each destination's
/// uploader sends its own queue, and one destination's outage or refusals leave the other's alone.
@Suite(.timeLimit(.minutes(2))) struct FanOutTests {
    typealias Kit = DestinationKit

    static func rig() throws -> Rig {
        var configuration = OutboxConfiguration()
        configuration.destinations = ["a", "b"]
        return try Rig(configuration: configuration)
    }

    /// Segment to `a`, Amplitude to `b`.
    static func uploaders(_ rig: Rig, a: Kit.Transport, b: Kit.Transport) throws -> (a: OutboxUploader, b: OutboxUploader) {
        let uploaderA = try Kit.uploader(rig.outbox, .segment, transport: a, sleeper: rig.sleeper) { configuration in
            configuration.destination = "a"
            configuration.apiKey = "segment-key"
        }
        let uploaderB = try Kit.uploader(rig.outbox, .amplitude, transport: b, sleeper: rig.sleeper, url: "http://127.0.0.1:9/2/httpapi") {
            configuration in
            configuration.destination = "b"
            configuration.apiKey = "amplitude-key"
        }
        return (uploaderA, uploaderB)
    }

    /// The IDs of the events of the requests `transport` answered 200 to (by `accepted`).
    static func delivered(_ transport: Kit.Transport, accepted: (Int) -> Bool = { _ in true }) -> [String] {
        transport.requests.enumerated().filter { accepted($0.offset) }.flatMap(\.element.ids)
    }

    static func appendResults(_ rig: Rig) throws -> [String] {
        try rig.append(5)
        try rig.outbox.identify(userId: "user-42", traits: ["plan": "pro"])
        try rig.append(3, from: 5)
        rig.outbox.synchronize()
        return (0..<8).map { "s1#\($0)" }
    }

    @Test func everyResultReachesBothDestinations() async throws {
        let rig = try Self.rig()
        let expected = try Self.appendResults(rig)
        #expect(try rig.outbox.stats().destinations.mapValues(\.pending) == ["a": 9, "b": 9])
        let a = Kit.Transport()
        let b = Kit.Transport()
        let (uploaderA, uploaderB) = try Self.uploaders(rig, a: a, b: b)
        #expect(await uploaderA.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(await uploaderB.flush(timeout: Rig.drainDeadline) == .empty)
        for (name, transport) in [("a", a), ("b", b)] {
            let ids = Self.delivered(transport)
            #expect(ids.count == 9, "\(name): \(ids)")
            #expect(Set(ids).count == 9, "\(name): no duplicates")
            #expect(Set(ids).isSuperset(of: expected), "\(name): \(ids)")
        }
        #expect(Set(Self.delivered(a)) == Set(Self.delivered(b)), "the identify's ID too")
        #expect(a.requests.allSatisfy { $0.header("Authorization") != nil }, "Segment's format to a")
        #expect(b.requests.allSatisfy { $0.json["api_key"] == "amplitude-key" }, "Amplitude's format to b")
        let identifies = b.requests.flatMap(\.events).filter { $0["event_type"] == "$identify" }
        #expect(identifies.count == 1 && identifies.first?["user_id"] == "user-42")
        let stats = try rig.outbox.stats()
        #expect(stats.pending == 0 && stats.destinations.isEmpty, "\(stats)")
    }

    @Test func aDestinationThatIsDownDoesNotHoldUpTheOther() async throws {
        let rig = try Self.rig()
        let expected = try Self.appendResults(rig)
        let up = Locked(false)
        let a = Kit.Transport()
        let b = Kit.Transport { _, _ in
            up.withLock { $0 } ? UploadResponse(status: 200, body: #"{"code":200}"#) : UploadResponse(status: 503, body: "down")
        }
        let (uploaderA, uploaderB) = try Self.uploaders(rig, a: a, b: b)

        let flushB = Task { await uploaderB.flush(timeout: Rig.drainDeadline) }
        #expect(await uploaderA.flush(timeout: Rig.drainDeadline) == .empty)
        while b.requests.count < 3 { try await Task.sleep(for: .milliseconds(10)) }
        flushB.cancel()
        #expect(await flushB.value == .timedOut(remaining: 9))
        #expect(Set(Self.delivered(a)).isSuperset(of: expected) && Self.delivered(a).count == 9)
        let stats = try rig.outbox.stats()
        #expect(stats.destinations["b"]?.pending == 9, "\(stats)")
        #expect((stats.destinations["a"]?.pending ?? 0) == 0, "\(stats)")
        #expect(stats.pending == 9 && stats.deadLetter == 0)

        // b comes back: it gets everything, once; a is not sent anything again.
        let failed = b.requests.count
        let requestsToA = a.requests.count
        up.withLock { $0 = true }
        #expect(await uploaderB.flush(timeout: Rig.drainDeadline) == .empty)
        let deliveredToB = Self.delivered(b) { $0 >= failed }
        #expect(deliveredToB.count == 9 && Set(deliveredToB) == Set(Self.delivered(a)), "\(deliveredToB)")
        #expect(a.requests.count == requestsToA)
        #expect(uploaderB.tally.delivered == 9 && uploaderA.tally.delivered == 9)
        #expect(try rig.outbox.stats().pending == 0)
    }

    @Test func aKeyOneDestinationRefusesStopsOnlyItsUploader() async throws {
        let rig = try Self.rig()
        _ = try Self.appendResults(rig)
        let a = Kit.Transport()
        let b = Kit.Transport(status: 401, body: #"{"error":"bad key"}"#)
        let (uploaderA, uploaderB) = try Self.uploaders(rig, a: a, b: b)
        guard case .stopped(9, .unauthorized(401, _, _)) = await uploaderB.flush(timeout: Rig.drainDeadline) else {
            Issue.record("b did not stop: \(uploaderB.tally)")
            return
        }
        #expect(await uploaderA.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(uploaderA.stoppedBecause == nil && Self.delivered(a).count == 9)
        #expect(b.requests.count == 1)
        #expect(try rig.outbox.stats().destinations.mapValues(\.pending) == ["b": 9])
        #expect(rig.errors.all.count == 1, "\(rig.errors.all)")
    }

    @Test func aDeadLetterOfOneDestinationStaysItsOwn() async throws {
        let rig = try Self.rig()
        try rig.append(6) { index in ["n": .number(Double(index)), "tag": index == 2 ? "POISON" : "fine"] }
        let a = Kit.Transport()
        // b (Amplitude) names the poisoned event of each batch as invalid.
        let b = Kit.Transport { _, body in
            let events = Kit.Request(body: body, headers: []).events
            guard let index = events.firstIndex(where: { $0["event_properties"]?["value"]?["tag"] == "POISON" }) else {
                return UploadResponse(status: 200, body: #"{"code":200}"#)
            }
            return UploadResponse(status: 400, body: #"{"code":400,"events_with_invalid_fields":{"tag":[\#(index)]}}"#)
        }
        let (uploaderA, uploaderB) = try Self.uploaders(rig, a: a, b: b)
        #expect(await uploaderB.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(await uploaderA.flush(timeout: Rig.drainDeadline) == .empty)

        let dead = try rig.outbox.deadLetters()
        #expect(dead.map(\.messageId) == ["s1#2"] && dead.map(\.destination) == ["b"], "\(dead)")
        #expect(Self.delivered(a) == (0..<6).map { "s1#\($0)" }, "a takes the result b refused")
        #expect(b.requests.count == 2 && Self.delivered(b) { $0 == 1 } == ["s1#0", "s1#1", "s1#3", "s1#4", "s1#5"])
        let stats = try rig.outbox.stats()
        #expect(stats.destinations["b"]?.deadLetter == 1 && stats.destinations["a"] == nil, "\(stats)")
        #expect(stats.deadLetter == 1 && stats.pending == 0)

        // Requeued, the dead letter goes back to b's queue only.
        #expect(try rig.outbox.requeueDeadLetters() == (requeued: 1, kept: 0))
        #expect(try rig.outbox.stats().destinations.mapValues(\.pending) == ["b": 1])
        #expect(await uploaderA.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(a.requests.count == 1, "nothing more for a")
    }
}
