import Anna
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// What the vendors answer, over a loopback server: a refused key stops delivery (said once,
/// results kept), Amplitude's named invalid events are set aside alone, 413 splits, 429 and
/// 5xx are retried, a closed port is said once, and the per-event, per-batch and
/// flushAt/flushInterval limits shape the requests.
@Suite(.timeLimit(.minutes(2))) struct VendorAnswerTests {
    typealias Kit = DestinationKit

    /// The bodies a loopback server received, in order.
    final class Received: Sendable {
        private let bodies = Locked<[String]>([])
        func record(_ body: String) { bodies.withLock { $0.append(body) } }
        var all: [String] { bodies.withLock { $0 } }
        /// Each body's events' IDs (`messageId`, or Amplitude's `insert_id`).
        var ids: [[String]] { all.map { Kit.Request(body: Array($0.utf8), headers: []).ids } }
    }

    /// A server answering request `n` with `answer(n, body)`, recording each body in `received`.
    static func server(_ received: Received, answer: @escaping @Sendable (Int, String) -> String) throws -> RawHTTPServer {
        try RawHTTPServer { number, body in
            received.record(body)
            return .init(bytes: answer(number, body))
        }
    }

    static func uploader(
        _ rig: Rig, _ format: DeliveryFormat, url: String, configure: (inout UploadConfiguration) -> Void = { _ in }
    ) throws -> OutboxUploader {
        var configuration = UploadConfiguration(url: url, format: format)
        configuration.apiKey = "key-123"
        configuration.requestTimeout = .seconds(30)
        configure(&configuration)
        return try OutboxUploader(outbox: rig.outbox, configuration: configuration, sleep: rig.sleeper.sleep, random: { 0 })
    }

    static func count(_ errors: [OutboxError], _ matches: (OutboxError) -> Bool) -> Int { errors.filter(matches).count }

    @Test(arguments: [401, 403])
    func aRefusedKeyStopsDeliverySaidOnceAndKeepsTheResults(_ status: Int) async throws {
        let rig = try Rig()
        try rig.append(4)
        let received = Received()
        let server = try Self.server(received) { _, _ in RawHTTPServer.response(status, body: #"{"error":"bad key"}"#) }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .segment, url: "http://127.0.0.1:\(server.port)/v1/batch")
        let outcome = await uploader.flush(timeout: Rig.drainDeadline)
        guard case let .stopped(remaining, because) = outcome else {
            Issue.record("the flush ended with \(outcome)")
            return
        }
        #expect(remaining == 4)
        guard case .unauthorized(status, _, let body) = because else {
            Issue.record("stopped because of \(because)")
            return
        }
        #expect(body.contains("bad key"))
        #expect(server.requestPaths == ["/v1/batch"], "one request, at the URL's path")
        #expect(uploader.stoppedBecause == because)
        #expect(try rig.outbox.stats().pending == 4 && rig.outbox.stats().deadLetter == 0)

        // A second flush sends nothing and stops again, without a second report.
        let again = await uploader.flush(timeout: Rig.drainDeadline)
        #expect(again == .stopped(remaining: 4, because: because))
        #expect(server.requests == 1)
        #expect(Self.count(rig.errors.all) { if case .unauthorized = $0 { true } else { false } } == 1)
        #expect(rig.errors.all.count == 1, "\(rig.errors.all)")
        #expect(uploader.tally.delivered == 0 && uploader.tally.deadLettered == 0)
    }

    @Test func amplitudesInvalidKeyStopsDeliveryAsA401Does() async throws {
        let rig = try Rig()
        try rig.append(3)
        let received = Received()
        let server = try Self.server(received) { _, _ in
            RawHTTPServer.response(400, body: #"{"code":400,"error":"Invalid API key: x"}"#)
        }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .amplitude, url: "http://127.0.0.1:\(server.port)/2/httpapi")
        let outcome = await uploader.flush(timeout: Rig.drainDeadline)
        guard case .stopped(3, .unauthorized(400, _, _)) = outcome else {
            Issue.record("the flush ended with \(outcome)")
            return
        }
        #expect(server.requests == 1, "no bisection of a refused key")
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == outcome)
        #expect(server.requests == 1)
        #expect(rig.errors.all.count == 1, "\(rig.errors.all)")
        let stats = try rig.outbox.stats()
        #expect(stats.pending == 3 && stats.deadLetter == 0)
    }

    @Test func amplitudesNamedInvalidEventsAloneAreSetAside() async throws {
        let rig = try Rig()
        try rig.append(5)
        let received = Received()
        let server = try Self.server(received) { number, _ in
            number == 0
                ? RawHTTPServer.response(
                    400,
                    body: #"{"code":400,"error":"Request missing required field","events_with_invalid_fields":{"time":[1,3]}}"#)
                : RawHTTPServer.response(200, body: #"{"code":200,"events_ingested":3}"#)
        }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .amplitude, url: "http://127.0.0.1:\(server.port)/2/httpapi")
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(received.ids == [["s1#0", "s1#1", "s1#2", "s1#3", "s1#4"], ["s1#0", "s1#2", "s1#4"]])
        let dead = try rig.outbox.deadLetters()
        #expect(Set(dead.map(\.messageId)) == ["s1#1", "s1#3"] && dead.count == 2)
        #expect(dead.allSatisfy { $0.status == 400 && $0.responseBody.contains("events_with_invalid_fields") })
        #expect(uploader.tally.delivered == 3 && uploader.tally.deadLettered == 2)
        let refusals = rig.errors.all.compactMap { error -> [String]? in
            if case let .refused(400, ids, _) = error { ids } else { nil }
        }
        #expect(refusals.count == 1 && Set(refusals.first ?? []) == ["s1#1", "s1#3"], "said once for both: \(rig.errors.all)")
        #expect(dead.map(\.messageId) == ["s1#1", "s1#3"], "dead letters oldest first")
        #expect(refusals == [["s1#1", "s1#3"]])
        let stats = try rig.outbox.stats()
        #expect(stats.pending == 0 && stats.deadLetter == 2)
    }

    @Test func a413SplitsTheBatchUntilItFits() async throws {
        let rig = try Rig()
        try rig.append(8)
        let received = Received()
        let server = try Self.server(received) { _, body in
            let events = Kit.Request(body: Array(body.utf8), headers: []).events.count
            return events > 2 ? RawHTTPServer.response(413, body: "Payload Too Large") : RawHTTPServer.response(200)
        }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .segment, url: "http://127.0.0.1:\(server.port)/v1/batch")
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        let sizes = received.ids.map(\.count)
        #expect(sizes == [8, 4, 2, 2, 4, 2, 2], "halved down to what is taken: \(sizes)")
        let accepted = received.ids.filter { $0.count <= 2 }.flatMap { $0 }
        #expect(accepted == (0..<8).map { "s1#\($0)" }, "each delivered once, in order")
        #expect(try rig.outbox.stats().deadLetter == 0)
        #expect(uploader.tally.delivered == 8)
    }

    @Test func a429sRetryAfterIsWaited() async throws {
        let rig = try Rig()
        try rig.append(2)
        let received = Received()
        let server = try Self.server(received) { number, _ in
            number == 0 ? RawHTTPServer.response(429, ["Retry-After: 7"], body: "slow down") : RawHTTPServer.response(200)
        }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .posthog, url: "http://127.0.0.1:\(server.port)/batch/")
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(server.requests == 2)
        #expect(rig.sleeper.recorded.count == 1, "\(rig.sleeper.recorded)")
        #expect(abs((rig.sleeper.recorded.first ?? 0) - 7) < 1, "the Retry-After, not the back-off: \(rig.sleeper.recorded)")
        #expect(uploader.tally.retries == 1 && uploader.tally.delivered == 2)
    }

    @Test(arguments: [500, 502, 503, 504])
    func a5xxIsRetriedUntilDelivered(_ status: Int) async throws {
        let rig = try Rig()
        try rig.append(3)
        let received = Received()
        let server = try Self.server(received) { number, _ in
            number < 3 ? RawHTTPServer.response(status, body: "down") : RawHTTPServer.response(200)
        }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .segment, url: "http://127.0.0.1:\(server.port)/v1/batch")
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(received.ids == Array(repeating: ["s1#0", "s1#1", "s1#2"], count: 4), "the same batch each time")
        #expect(uploader.tally.retries == 3 && uploader.tally.delivered == 3)
        #expect(rig.sleeper.recorded.count == 3, "a back-off before each retry: \(rig.sleeper.recorded)")
        #expect(rig.errors.all.isEmpty, "\(rig.errors.all)")
        #expect(try rig.outbox.stats().pending == 0)
    }

    @Test func aClosedPortIsSaidOnceAndTheResultsAreKept() async throws {
        let rig = try Rig()
        try rig.append(3)
        let refusing = try LoopbackPort.refusing()
        defer { refusing.close() }
        let port = refusing.port
        let uploader = try Self.uploader(rig, .segment, url: "http://127.0.0.1:\(port)/v1/batch")
        let flush = Task { await uploader.flush(timeout: Rig.drainDeadline) }
        while uploader.tally.requests < 3 { try await Task.sleep(for: .milliseconds(10)) }
        flush.cancel()
        #expect(await flush.value == .timedOut(remaining: 3))
        let unreachable = rig.errors.all.compactMap { error -> String? in
            if case let .unreachable(_, reason) = error { reason } else { nil }
        }
        #expect(unreachable == ["connection refused"], "\(rig.errors.all)")
        #expect(rig.errors.all.count == 1)
        #expect(uploader.tally.delivered == 0)
        let stats = try rig.outbox.stats()
        #expect(stats.pending == 3 && stats.deadLetter == 0)
    }

    /// `{"blob": "xxx…"}` of `size` characters: under the outbox's 32 KB per result, over
    /// Segment's 32 KB per event once the context and IDs are added.
    static func blob(_ size: Int) -> JSONValue { ["blob": .string(String(repeating: "x", count: size))] }

    @Test func resultsOverSegmentsPerEventCapAreSetAsideAndSaidOnce() async throws {
        let rig = try Rig()
        // Three results of one size, and one small one between them.
        try rig.append(4) { $0 == 2 ? ["small": true] : Self.blob(32_600) }
        let received = Received()
        let server = try Self.server(received) { _, _ in RawHTTPServer.response(200) }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .segment, url: "http://127.0.0.1:\(server.port)/v1/batch")
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(received.ids == [["s1#2"]], "only the small one is sent")
        let dead = try rig.outbox.deadLetters()
        #expect(dead.map(\.messageId) == ["s1#0", "s1#1", "s1#3"])
        #expect(dead.allSatisfy { $0.status == 0 && $0.reason.contains("32768") }, "\(dead.map(\.reason))")
        let unsendable = rig.errors.all.compactMap { error -> Int? in
            if case let .unsendable(_, _, count) = error { count } else { nil }
        }
        #expect(unsendable == [3], "said once for the three: \(rig.errors.all)")
        #expect(uploader.tally.deadLettered == 3 && uploader.tally.delivered == 1)
    }

    @Test func resultsOverTheCapOfDifferentSizesAreSaidOnceToo() async throws {
        let rig = try Rig()
        try rig.append(3) { Self.blob(32_500 + 100 * $0) }
        try rig.append(1, from: 3) { _ in ["small": true] }
        try rig.append(1, from: 4) { _ in Self.blob(32_650) }
        let received = Received()
        let server = try Self.server(received) { _, _ in RawHTTPServer.response(200) }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .segment, url: "http://127.0.0.1:\(server.port)/v1/batch")
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(received.ids == [["s1#3"]])
        let dead = try rig.outbox.deadLetters().map(\.messageId)
        #expect(Set(dead) == ["s1#0", "s1#1", "s1#2", "s1#4"] && dead.count == 4)
        #expect(dead == ["s1#0", "s1#1", "s1#2", "s1#4"], "dead letters oldest first")
        let reports = Self.count(rig.errors.all) { if case .unsendable = $0 { true } else { false } }
        #expect(reports == 1, "\(rig.errors.all)")
    }

    @Test func aBatchNeverExceedsTheByteCap() async throws {
        let rig = try Rig()
        try rig.append(40) { ["n": .number(Double($0)), "pad": .string(String(repeating: "p", count: 100))] }
        let received = Received()
        let server = try Self.server(received) { _, _ in RawHTTPServer.response(200) }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .segment, url: "http://127.0.0.1:\(server.port)/v1/batch") {
            $0.maximumBatchBytes = 3000
        }
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        let sizes = received.all.map(\.utf8.count)
        #expect(sizes.count > 1 && sizes.allSatisfy { $0 <= 3000 }, "\(sizes)")
        #expect(received.ids.flatMap { $0 } == (0..<40).map { "s1#\($0)" }, "each once, in order")
        #expect(uploader.tally.delivered == 40 && uploader.tally.deadLettered == 0)
    }

    @Test func runWaitsForFlushAtResults() async throws {
        let rig = try Rig()
        try rig.append(3)
        let received = Received()
        let server = try Self.server(received) { _, _ in RawHTTPServer.response(200) }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .segment, url: "http://127.0.0.1:\(server.port)/v1/batch") { configuration in
            configuration.flushAt = 5
            configuration.flushInterval = .seconds(3600)
            configuration.pollInterval = .milliseconds(10)
        }
        let running = Task { await uploader.run() }
        // Give the uploader many polls in which it could (wrongly) send the three alone.
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.requests == 0, "fewer than flushAt wait")
        try rig.append(2, from: 3)
        while uploader.tally.delivered < 5 { try await Task.sleep(for: .milliseconds(10)) }
        running.cancel()
        await running.value
        #expect(received.ids == [(0..<5).map { "s1#\($0)" }], "the five go together, in one request")
    }

    @Test func runSendsFewerThanFlushAtOnceTheIntervalPasses() async throws {
        let rig = try Rig()
        try rig.append(3)
        let received = Received()
        let server = try Self.server(received) { _, _ in RawHTTPServer.response(200) }
        defer { server.stop() }
        let uploader = try Self.uploader(rig, .segment, url: "http://127.0.0.1:\(server.port)/v1/batch") { configuration in
            configuration.flushAt = 5
            configuration.flushInterval = .milliseconds(200)
            configuration.pollInterval = .milliseconds(10)
        }
        let running = Task { await uploader.run() }
        // (Not `stats().pending`: the rows of the request under way count as in flight.)
        while uploader.tally.delivered < 3 { try await Task.sleep(for: .milliseconds(10)) }
        running.cancel()
        await running.value
        #expect(received.ids == [["s1#0", "s1#1", "s1#2"]], "one request with the three")
        #expect(uploader.tally.delivered == 3 && uploader.tally.requests == 1)
        #expect(try rig.outbox.stats().pending == 0)
    }
}
