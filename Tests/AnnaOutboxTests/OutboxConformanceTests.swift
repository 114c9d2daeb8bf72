import Anna
import AnnaCollector
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// The uploader against a real collector on loopback, one status class or failure at a time.
@Suite struct OutboxConformanceTests {
    @Test(arguments: [200, 201, 202, 204, 299])
    func successDeletesTheBatch(status: Int) async throws {
        let rig = try Rig()
        try rig.append(30)
        // The collector answers `status` to the first request without storing; the rows must go.
        let (server, uploader) = try await rig.deliver(to: .failing(status), batch: 10)
        let requests = server.collector.requests
        #expect(requests.count == 3)
        #expect(requests.first?.status == status)
        #expect(try rig.outbox.stats().pending == 0)
        #expect(uploader.tally.retries == 0)
        #expect(try server.storedIDs().count == 20)  // the first batch was taken by the injected 2xx
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504, 599])
    func retryableStatusBacksOffThenDelivers(status: Int) async throws {
        let rig = try Rig()
        try rig.append(5)
        let server = try await rig.deliver(to: .failing(status, times: 3)).server
        let requests = server.collector.requests
        #expect(requests.map(\.status) == [status, status, status, 200])
        #expect(requests.map(\.retryCount) == ["0", "1", "2", "3"])
        #expect(rig.sleeper.recorded.count == 3)
        for (delay, expected) in zip(rig.sleeper.recorded, [0.5, 1.0, 2.0]) {
            #expect(abs(delay - expected) < 0.05, "a back-off of \(delay) s where \(expected) s was due")
        }
        #expect(try server.storedIDs().count == 5)
        #expect(try rig.outbox.stats().pending == 0)
    }

    /// The pipeline's back-off doubles from `initialBackoff` and stays at its ceiling.
    @Test func theBackoffDoublesUpToItsCeiling() async throws {
        let rig = try Rig()
        try rig.append(2)
        let server = try await rig.deliver(to: .failing(503, times: 6)) { $0.maximumBackoff = .seconds(2) }.server
        #expect(rig.sleeper.recorded.count == 6)
        for (delay, expected) in zip(rig.sleeper.recorded, [0.5, 1, 2, 2, 2, 2]) {
            #expect(abs(delay - expected) < 0.05, "a back-off of \(delay) s where \(expected) s was due")
        }
        #expect(try server.storedIDs().count == 2)
    }

    /// Jitter only shortens a back-off, by at most `jitter` of it.
    @Test(arguments: [0.0, 0.5, 0.999])
    func jitterShortensTheBackoffByAtMostItsShare(draw: Double) async throws {
        let rig = try Rig()
        try rig.append(1)
        let server = try await rig.collector(.failing(500, times: 3))
        var configuration = UploadConfiguration(url: server.url)
        configuration.jitter = 0.1
        let uploader = try OutboxUploader(outbox: rig.outbox, configuration: configuration, sleep: rig.sleeper.sleep, random: { draw })
        await rig.expectDrained(uploader)
        await server.stop()
        for (delay, due) in zip(rig.sleeper.recorded, [0.5, 1.0, 2.0]) {
            #expect(delay <= due + 0.05 && delay >= due * 0.9 - 0.05, "a back-off of \(delay) s for \(due) s due")
            #expect(abs(delay - due * (1 - 0.1 * draw)) < 0.05)
        }
        #expect(rig.sleeper.recorded.count == 3)
    }

    /// `X-Anna-Retry-Count` counts the attempts of one batch; the next batch starts at 0.
    @Test func theRetryCountStartsOverForEachBatch() async throws {
        let rig = try Rig()
        try rig.append(4)
        let server = try await rig.deliver(to: .failing(503, times: 2), batch: 2).server
        let requests = server.collector.requests
        #expect(requests.map(\.status) == [503, 503, 200, 200])
        #expect(requests.map(\.retryCount) == ["0", "1", "2", "0"])
        #expect(requests.filter { $0.status == 200 }.flatMap(\.messageIds) == (0..<4).map { "s1#\($0)" })
    }

    @Test(arguments: [401, 403])
    func aRefusedKeyStopsDeliveryAfterOneRequestAndSaysSoOnce(status: Int) async throws {
        let rig = try Rig()
        try rig.append(3)
        let server = try await rig.collector(.failing(status, times: 4))
        let uploader = try rig.uploader(server.url)
        let outcome = await uploader.flush()
        let second = await uploader.flush()
        await server.stop()
        var stopped = false
        if case .stopped(3, .unauthorized(status, _, _)) = outcome { stopped = true }
        #expect(stopped, "expected a stop for the key with 3 results kept, got \(outcome)")
        #expect(second == outcome, "a second flush sends nothing")
        #expect(server.collector.requests.count == 1)
        #expect(rig.errors.all.filter { if case .unauthorized = $0 { true } else { false } }.count == 1)
        #expect(try rig.outbox.stats().pending == 3)
    }

    @Test(arguments: [404, 405, 409, 410, 418])
    func otherClientErrorsKeepTheResultsAndReportOnce(status: Int) async throws {
        let rig = try Rig()
        try rig.append(3)
        let server = try await rig.deliver(to: .failing(status, times: 4)).server
        #expect(server.collector.requests.count == 5)
        let reports = rig.errors.all.filter { if case .rejectedByServer(status, _, _) = $0 { true } else { false } }
        #expect(reports.count == 1)
        #expect(try rig.outbox.stats().deadLetter == 0)
        #expect(try server.storedIDs().count == 3)
    }

    struct RetryAfterCase: Sendable, CustomTestStringConvertible {
        /// The header's value, sent with one 503.
        var value: String
        /// ``UploadConfiguration/maximumRetryAfter``, when not the default.
        var limit: Double?
        /// The waits before the retry that delivers.
        var waits: [Double]
        var testDescription: String { "Retry-After: \(value)" + (limit.map { " (limit \($0) s)" } ?? "") }
    }

    static let retryAfterCases = [
        RetryAfterCase(value: "0", waits: []),
        RetryAfterCase(value: "1", waits: [1]),
        RetryAfterCase(value: "7", waits: [7]),
        RetryAfterCase(value: "120", waits: [120]),
        // Longer than the limit: clamped to it.
        RetryAfterCase(value: "86400", limit: 60, waits: [60]),
        // Unreadable: the computed back-off instead.
        RetryAfterCase(value: "soon", waits: [0.5]),
    ]

    /// `Retry-After` in seconds is honoured, clamped to the limit; text that is not a number
    /// or a date falls back to the back-off.
    @Test(arguments: retryAfterCases)
    func retryAfterSecondsIsHonoured(_ retryAfter: RetryAfterCase) async throws {
        let rig = try Rig()
        try rig.append(2)
        let server = try await rig.deliver(to: .failing(503, retryAfter: retryAfter.value)) { configuration in
            if let limit = retryAfter.limit { configuration.maximumRetryAfter = .seconds(limit) }
        }.server
        #expect(rig.sleeper.recorded.count == retryAfter.waits.count, "\(rig.sleeper.recorded)")
        for (delay, expected) in zip(rig.sleeper.recorded, retryAfter.waits) {
            #expect(abs(delay - expected) < 0.05, "waited \(delay) s where \(expected) s was due")
        }
        #expect(try server.storedIDs().count == 2)
    }

    @Test func retryAfterAsAnHTTPDateIsHonoured() async throws {
        let rig = try Rig()
        try rig.append(2)
        var failures = FailureInjection()
        failures.failStatus = 429
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let start = Date()
        failures.retryAfter = formatter.string(from: start.addingTimeInterval(600))
        let server = try await rig.collector(failures)
        let uploader = try rig.uploader(server.url)
        #expect(await uploader.flush() == .empty)
        await server.stop()
        // The date has whole seconds, and the answer came some time after it was made.
        let elapsed = Date().timeIntervalSince(start)
        let delay = rig.sleeper.recorded.first ?? 0
        #expect(delay > 599 - elapsed && delay <= 600, "waited \(delay) s for a date 600 s ahead, \(elapsed) s later")
    }

    @Test func retryAfterOnASuccessHoldsTheNextBatch() async throws {
        let rig = try Rig()
        try rig.append(4)
        let server = try await rig.deliver(to: .failing(200, retryAfter: "5"), batch: 2).server
        #expect(server.collector.requests.count == 2)
        #expect(abs((rig.sleeper.recorded.first ?? 0) - 5) < 0.05)
    }

    @Test func aDeadlineDuringARetryAfterEndsTheFlushWithTheResultsKept() async throws {
        let rig = try Rig()
        try rig.append(3)
        let server = try await rig.collector(.failing(503, retryAfter: "3600"))
        let uploader = try rig.uploader(server.url)
        #expect(await uploader.flush(timeout: .seconds(1)) == .timedOut(remaining: 3))
        await server.stop()
        #expect(try rig.outbox.stats().pending == 3)
    }

    /// The body limit of the collector fits `fits` results; the batch of 40 is halved until it does.
    @Test(arguments: [1, 3, 10, 25])
    func tooLargeHalvesTheBatchUntilItFits(fits: Int) async throws {
        let rig = try Rig()
        try rig.append(40) { ["n": .number(Double($0)), "pad": .string(String(repeating: "x", count: 400))] }
        let one = WireFormat.encode([sampleMessage(pad: 400)], sentAt: Date()).count - 60
        var failures = FailureInjection()
        failures.maximumBodyBytes = 60 + one * fits + 30
        let server = try await rig.deliver(to: failures, batch: 40).server
        let accepted = server.collector.requests.filter { $0.status == 200 }
        #expect(accepted.allSatisfy { $0.count <= fits })
        #expect(try server.storedIDs().count == 40)
        #expect(try rig.outbox.stats().deadLetter == 0)
        #expect(accepted.flatMap(\.messageIds) == (0..<40).map { "s1#\($0)" })
    }

    @Test func aSingleResultTooLargeForTheCollectorIsSetAside() async throws {
        let rig = try Rig()
        try rig.append(8) { index in
            index == 5 ? ["big": .string(String(repeating: "y", count: 20_000))] : ["n": .number(Double(index))]
        }
        var failures = FailureInjection()
        failures.maximumBodyBytes = 4000
        let server = try await rig.deliver(to: failures).server
        let dead = try rig.outbox.deadLetters()
        #expect(dead.map(\.messageId) == ["s1#5"])
        #expect(dead.first?.status == 413)
        #expect(try server.storedIDs() == Set((0..<8).filter { $0 != 5 }.map { "s1#\($0)" }))
    }

    struct PoisonCase: Sendable, CustomTestStringConvertible {
        var status: Int
        var count: Int
        var poison: [Int]
        var testDescription: String { "\(status), \(poison.count) poisoned of \(count) at \(poison)" }
    }

    static let poisonCases: [PoisonCase] = [400, 422].flatMap { status in
        [
            PoisonCase(status: status, count: 100, poison: [0]),
            PoisonCase(status: status, count: 100, poison: [99]),
            PoisonCase(status: status, count: 100, poison: [50]),
            PoisonCase(status: status, count: 100, poison: [3, 70]),
            PoisonCase(status: status, count: 64, poison: [10, 11, 12, 40]),
            PoisonCase(status: status, count: 5, poison: [0, 1, 2, 3, 4]),
            PoisonCase(status: status, count: 1, poison: [0]),
        ]
    }

    @Test(arguments: poisonCases)
    func poisonResultsAreIsolatedAndTheRestDelivered(_ poisonCase: PoisonCase) async throws {
        let rig = try Rig()
        try rig.append(poisonCase.count) { index in
            ["n": .number(Double(index)), "tag": .string(poisonCase.poison.contains(index) ? "POISON" : "fine")]
        }
        var failures = FailureInjection()
        failures.rejectMessageContaining = "POISON"
        failures.rejectStatus = poisonCase.status
        let server = try await rig.deliver(to: failures).server
        let dead = try rig.outbox.deadLetters()
        #expect(dead.map(\.messageId) == poisonCase.poison.map { "s1#\($0)" })
        #expect(dead.allSatisfy { $0.status == poisonCase.status && $0.responseBody.contains("refused") })
        let delivered = server.collector.requests.filter { $0.status == 200 }.flatMap(\.messageIds)
        let good = (0..<poisonCase.count).filter { !poisonCase.poison.contains($0) }.map { "s1#\($0)" }
        #expect(delivered == good, "the good results arrive once each, in order")
        #expect(try rig.outbox.stats().pending == 0)
        let refusals = rig.errors.all.filter { if case .refused = $0 { true } else { false } }
        #expect(refusals.count == poisonCase.poison.count)
    }

    @Test func aPoisonResultDoesNotHoldUpLaterBatches() async throws {
        let rig = try Rig()
        try rig.append(300) { ["n": .number(Double($0)), "tag": .string($0 == 42 ? "POISON" : "fine")] }
        var failures = FailureInjection()
        failures.rejectMessageContaining = "POISON"
        let server = try await rig.deliver(to: failures).server
        #expect(try server.storedIDs().count == 299)
        // 3 batches, plus the bisection of one batch of 100: 2 + 2 + … + 2 requests, about 2 log2(100).
        #expect(server.collector.requests.count <= 3 + 2 * 7)
    }

    @Test func anUnreachableCollectorKeepsEverything() async throws {
        let rig = try Rig()
        try rig.append(10)
        let server = try await rig.collector()
        let port = server.port
        await server.stop()
        let uploader = try rig.uploader("http://127.0.0.1:\(port)/batch", timeout: 0.3)
        #expect(try await rig.flushUntilARetry(uploader) == .timedOut(remaining: 10))
        #expect(uploader.tally.retries >= 1)
        #expect(uploader.tally.delivered == 0)
        #expect(try rig.outbox.stats().pending == 10)
    }

    @Test func droppedConnectionsLoseNothing() async throws {
        let rig = try Rig()
        try rig.append(50)
        var failures = FailureInjection()
        failures.dropConnectionEvery = 2
        let server = try await rig.deliver(to: failures, batch: 10).server
        #expect(server.collector.requests.contains { $0.status == 0 })
        #expect(try server.storedIDs() == Set((0..<50).map { "s1#\($0)" }))
    }

    @Test func aSlowCollectorTimesOutAndIsRetried() async throws {
        let rig = try Rig()
        try rig.append(4)
        var failures = FailureInjection()
        failures.delay = .milliseconds(600)
        let server = try await rig.collector(failures)
        let slow = try rig.uploader(server.url, timeout: 0.2)
        #expect(try await rig.flushUntilARetry(slow) == .timedOut(remaining: 4))
        #expect(slow.tally.retries >= 1)
        #expect(slow.tally.delivered == 0)
        #expect(rig.errors.all.count == 1, "a timed-out request is said once, then retried: \(rig.errors.all)")
        #expect(rig.errors.all.first?.description.contains("no answer within 0.2 s") == true, "\(rig.errors.all)")
        let patient = try rig.uploader(server.url, timeout: 5)
        await rig.expectDrained(patient)
        await server.stop()
        #expect(try server.storedIDs().count == 4)
    }

    @Test func headersAndGzip() async throws {
        let rig = try Rig()
        try rig.append(20)
        let server = try await rig.collector()
        let uploader = try rig.uploader(server.url) {
            $0.gzip = true
            $0.bearerToken = "sekret"
        }
        await rig.expectDrained(uploader)
        await server.stop()
        let request = try #require(server.collector.requests.first)
        #expect(request.contentType == "application/json")
        #expect(request.contentEncoding == "gzip")
        #expect(request.authorization == "Bearer sekret")
        #expect(request.retryCount == "0")
        #expect(try server.storedIDs().count == 20)
    }

    @Test func batchesRespectTheCountAndByteLimits() async throws {
        let rig = try Rig()
        try rig.append(250)
        let server = try await rig.collector()
        let uploader = try rig.uploader(server.url)
        await rig.expectDrained(uploader)
        #expect(server.collector.requests.map(\.count) == [100, 100, 50])
        try rig.append(30, session: "s2") { ["n": .number(Double($0)), "pad": .string(String(repeating: "z", count: 1000))] }
        let small = try rig.uploader(server.url) { $0.maximumBatchBytes = 5000 }
        await rig.expectDrained(small)
        await server.stop()
        let later = server.collector.requests.dropFirst(3)
        #expect(later.allSatisfy { $0.count <= 4 && $0.status == 200 })
        #expect(later.reduce(0) { $0 + $1.count } == 30)
    }

    @Test func eachSessionArrivesInOrder() async throws {
        let rig = try Rig()
        for round in 0..<20 {
            for session in ["a", "b", "c"] { try rig.append(3, session: session, from: round * 3) }
        }
        var failures = FailureInjection()
        failures.failStatus = 503
        failures.failCount = 2
        failures.dropConnectionEvery = 5
        let server = try await rig.deliver(to: failures, batch: 7).server
        let delivered = server.collector.requests.filter { $0.status == 200 }.flatMap(\.messageIds)
        for session in ["a", "b", "c"] {
            let seqs = delivered.filter { $0.hasPrefix("\(session)#") }.compactMap { Int($0.split(separator: "#")[1]) }
            #expect(seqs == Array(0..<60))
        }
    }

    @Test func requeuedDeadLettersAreDeliveredWithTheirIDs() async throws {
        let rig = try Rig()
        try rig.append(10) { ["n": .number(Double($0)), "tag": .string($0 % 4 == 0 ? "POISON" : "fine")] }
        var failures = FailureInjection()
        failures.rejectMessageContaining = "POISON"
        let strict = try await rig.collector(failures)
        await rig.expectDrained(try rig.uploader(strict.url))
        await strict.stop()
        #expect(try rig.outbox.stats().deadLetter == 3)
        let requeued = try rig.outbox.requeueDeadLetters()
        #expect(requeued.requeued == 3 && requeued.kept == 0)
        let lenient = try await rig.collector()
        await rig.expectDrained(try rig.uploader(lenient.url))
        await lenient.stop()
        #expect(try lenient.storedIDs() == ["s1#0", "s1#4", "s1#8"])
        #expect(try rig.outbox.stats().deadLetter == 0)
    }

    @Test func theBodyHasTheDocumentedShape() async throws {
        let rig = try Rig()
        try rig.append(2, session: "sess") { ["n": .number(Double($0)), "text": "quote \" and \\ and \u{1}"] }
        let server = try await rig.collector()
        await rig.expectDrained(try rig.uploader(server.url))
        await server.stop()
        let stored = try server.collector.store.messages()
        #expect(stored.count == 2)
        let first = try #require(stored.first)
        #expect(first.messageId == "sess#0")
        #expect(first.session == "sess")
        #expect(first.seq == 0)
        #expect(first.time == 1_700_000_000_000)
        #expect(first.task == "t/e" && first.path == "/p" && first.event == "e")
        #expect(try JSONValue(parsing: first.result) == ["n": 0, "text": "quote \" and \\ and \u{1}"])
    }

    @Test func aCollectorRefusesAMalformedBody() async throws {
        let folder = try TemporaryFolder()
        let server = try await RunningCollector(storePath: folder.file("c.sqlite"))
        let transport = try HTTPUploadTransport(url: server.url)
        let response = try await transport.send(body: Array("{\"batch\": 3}".utf8), headers: [("Content-Type", "application/json")])
        await server.stop()
        #expect(response.status == 400)
        #expect(server.collector.requests.first?.malformed?.contains("sentAt") == true)
    }
}

func sampleMessage(pad: Int) -> OutboxMessage {
    OutboxMessage(
        messageId: "s1#10", session: "s1", seq: 10, time: 1_700_000_000_010, task: "t/e", path: "/p", event: "e",
        result: JSONValue.object(["n": 10, "pad": .string(String(repeating: "x", count: pad))]).jsonText)
}
