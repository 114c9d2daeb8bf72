import Anna
import AnnaCollector
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// What a collector that refuses, stalls, redirects, is down or sends absurd `Retry-After`
/// values does to the uploader: bounded requests, bounded waits, one report each, nothing lost.
@Suite(.timeLimit(.minutes(2))) struct OutboxDeliveryTrustTests {
    static func count<T>(_ errors: [OutboxError], _ matching: (OutboxError) -> T?) -> Int {
        errors.compactMap(matching).count
    }

    @Test func anEndpointThatRefusesEverythingAlikeIsSaidOnceAndNothingIsSetAside() async throws {
        let rig = try Rig()
        try rig.append(1209)
        let server = try await rig.collector(.failing(400, times: -1))
        let uploader = try rig.uploader(server.url)
        let outcome = await uploader.flush(timeout: Rig.drainDeadline)
        await server.stop()
        guard case let .stopped(remaining, because) = outcome else {
            Issue.record("the flush ended with \(outcome)")
            return
        }
        #expect(remaining == 1209)
        #expect(because.description.contains("refuses every result alike with status 400"))
        #expect(because.description.contains("injected 400"), "the first bytes of the answer")
        // One batch of 100: the whole, the first halves down to one result, and a second one.
        #expect(server.collector.requests.count <= 10, "\(server.collector.requests.count) requests")
        let reports = Self.count(rig.errors.all) { if case .formatRefused = $0 { $0 } else { nil } }
        #expect(reports == 1)
        #expect(rig.errors.all.count == 1, "\(rig.errors.all)")
        let stats = try rig.outbox.stats()
        #expect(stats.pending == 1209 && stats.deadLetter == 0)
    }

    @Test func aKnownFormatRefusalCostsOneRequestPerRetry() async throws {
        let rig = try Rig()
        try rig.append(300)
        let server = try await rig.collector(.failing(422, times: -1))
        let uploader = try rig.uploader(server.url)
        _ = await uploader.flush(timeout: Rig.drainDeadline)
        let first = server.collector.requests.count
        _ = await uploader.flush(timeout: Rig.drainDeadline)
        await server.stop()
        #expect(server.collector.requests.count == first + 1)
        #expect(rig.errors.all.count == 1, "said once: \(rig.errors.all)")
    }

    /// Answers 400 alike to everything; results arrive while its first request is under way.
    final class RefusingTransport: UploadTransport {
        let requests = Locked(0)
        let duringFirst: @Sendable () -> Void
        init(duringFirst: @escaping @Sendable () -> Void) { self.duringFirst = duringFirst }
        func send(body: [UInt8], headers: [(String, String)]) async throws -> UploadResponse {
            if requests.withLock({ count in
                defer { count += 1 }
                return count == 0
            }) {
                duringFirst()
            }
            return UploadResponse(status: 400, body: #"{"error":"not our format"}"#)
        }
    }

    @Test func aLoneResultRefusedWhileMoreArriveIsKeptUntilTheFormatIsJudged() async throws {
        let rig = try Rig()
        try rig.append(1)
        let outbox = rig.outbox
        let transport = RefusingTransport {
            for index in 1...5 {
                do {
                    try outbox.append(AnalyticsResult(value: .number(Double(index))), session: "s1", time: 0)
                } catch {
                    Issue.record("\(error)")
                }
            }
            outbox.synchronize()
        }
        let uploader = try OutboxUploader(
            outbox: rig.outbox, configuration: UploadConfiguration(url: "http://127.0.0.1:9/"), transport: transport,
            sleep: rig.sleeper.sleep, random: { 0 })
        let running = Task { await uploader.run() }
        while !rig.errors.all.contains(where: { if case .formatRefused = $0 { true } else { false } }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        running.cancel()
        await running.value
        let stats = try rig.outbox.stats()
        #expect(stats.deadLetter == 0 && stats.pending == 6, "\(stats); \(rig.errors.all)")
        #expect(rig.errors.all.count == 1, "\(rig.errors.all)")
    }

    @Test func deadLettersAtTheirCapKeepTheOldestAndSaySo() async throws {
        var configuration = OutboxConfiguration()
        configuration.maximumDeadLetters = 3
        let rig = try Rig(configuration: configuration)
        try rig.append(10) { ["n": .number(Double($0)), "tag": "POISON"] }
        var failures = FailureInjection()
        failures.rejectMessageContaining = "POISON"
        let server = try await rig.collector(failures)
        #expect(try await rig.uploader(server.url).flush() == .empty)
        await server.stop()
        let stats = try rig.outbox.stats()
        #expect(stats.deadLetter == 3)
        #expect(stats.dropped["deadLetterCap"] == 7)
        #expect(try rig.outbox.deadLetters().map(\.messageId) == ["s1#0", "s1#1", "s1#2"])
        let capReports = rig.errors.all.filter { if case .deadLetterCapReached = $0 { true } else { false } }
        #expect(capReports.count == 7)
        #expect(capReports.first?.description.contains("at their cap of 3") == true)
    }

    @Test func aClosedPortFailsFastAndIsSaidOnceWithItsReason() async throws {
        let rig = try Rig()
        try rig.append(5)
        let refusing = try LoopbackPort.refusing()
        defer { refusing.close() }
        let port = refusing.port
        var configuration = UploadConfiguration(url: "http://127.0.0.1:\(port)/batch")
        configuration.requestTimeout = .seconds(600)
        configuration.initialBackoff = .milliseconds(10)
        configuration.maximumBackoff = .milliseconds(10)
        let uploader = try OutboxUploader(outbox: rig.outbox, configuration: configuration, random: { 0 })
        // With a request timeout of 10 minutes, only a refusal that fails at once makes five
        // attempts before the suite's time limit.
        let flush = Task { await uploader.flush(timeout: Rig.drainDeadline) }
        while uploader.tally.requests < 5 { try await Task.sleep(for: .milliseconds(10)) }
        flush.cancel()
        #expect(await flush.value == .timedOut(remaining: 5))
        #expect(uploader.tally.delivered == 0)
        #expect(rig.errors.all.count == 1, "said once: \(rig.errors.all)")
        #expect(rig.errors.all.first?.description.contains("connection refused") == true, "\(rig.errors.all)")
    }

    @Test(arguments: ["10000000000000000", "99999999999999999999999999999", "-5", "nan", "1e16", "inf", "7200"])
    func anyRetryAfterOnASuccessIsClampedAndNeverWaitedForWithNothingLeft(_ value: String) async throws {
        let rig = try Rig()
        try rig.append(3)
        let server = try RawHTTPServer { _ in .init(bytes: RawHTTPServer.response(200, ["Retry-After: \(value)"])) }
        defer { server.stop() }
        let uploader = try rig.uploader(server.url)
        #expect(await uploader.flush() == .empty)
        #expect(rig.sleeper.recorded.isEmpty, "nothing is left: no wait")
        try rig.append(2, from: 3)
        #expect(await uploader.flush() == .empty)
        #expect(rig.sleeper.recorded.allSatisfy { $0 <= 3600 }, "\(rig.sleeper.recorded)")
        #expect(server.requests == 2)
    }

    @Test(arguments: [503, 429, 404])
    func aHugeRetryAfterOnAFailureIsClampedToTheLimit(_ status: Int) async throws {
        let rig = try Rig()
        try rig.append(1)
        let server = try RawHTTPServer { number in
            .init(bytes: number == 0 ? RawHTTPServer.response(status, ["Retry-After: 10000000000000000"]) : RawHTTPServer.response(200))
        }
        defer { server.stop() }
        let uploader = try rig.uploader(server.url)
        #expect(await uploader.flush() == .empty)
        #expect(rig.sleeper.recorded.count == 1)
        #expect(abs((rig.sleeper.recorded.first ?? 0) - 3600) < 1, "\(rig.sleeper.recorded)")
    }

    @Test func aBodyThatStallsHalfWayIsBoundedByTheRequestTimeout() async throws {
        let rig = try Rig()
        try rig.append(2)
        let server = try RawHTTPServer { number in
            number == 0
                ? .init(bytes: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"accepted\":", stall: true)
                : .init(bytes: RawHTTPServer.response(200))
        }
        defer { server.stop() }
        let uploader = try rig.uploader(server.url, timeout: 1)
        // The flush's deadline only catches a hang (in the full parallel run, the reading task
        // may wait long for a thread; a retry cut short by the 1 s timeout is retried again).
        #expect(await uploader.flush(timeout: .seconds(300)) == .empty)
        #expect(server.requests >= 2, "the stalled request was given up and retried")
        #expect(rig.errors.all.contains { $0.description.contains("did not arrive within 1 s") }, "\(rig.errors.all)")
    }

    @Test func aBodyThatStallsHalfWayIsBoundedByTheFlushDeadline() async throws {
        let rig = try Rig()
        try rig.append(2)
        let server = try RawHTTPServer { _ in
            .init(bytes: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"accepted\":", stall: true)
        }
        defer { server.stop() }
        let uploader = try rig.uploader(server.url, timeout: 600)
        #expect(await uploader.flush(timeout: .seconds(1)) == .timedOut(remaining: 2))
    }

    @Test func aLongAnswerIsReadOnlyUpToTheKeptBytes() async throws {
        let rig = try Rig()
        try rig.append(1)
        // Promises a megabyte, sends 8 KB, then stalls: reading stops at the 4 KB kept.
        let server = try RawHTTPServer { number in
            number == 0
                ? .init(bytes: "HTTP/1.1 404 No\r\nContent-Length: 1048576\r\n\r\n" + String(repeating: "x", count: 8192), stall: true)
                : .init(bytes: RawHTTPServer.response(200))
        }
        defer { server.stop() }
        let uploader = try rig.uploader(server.url, timeout: 600)
        #expect(await uploader.flush(timeout: .seconds(120)) == .empty)
        #expect(server.requests == 2)
        #expect(rig.errors.all.contains { if case .rejectedByServer(404, _, _) = $0 { true } else { false } }, "\(rig.errors.all)")
    }

    @Test(arguments: [301, 302, 307, 308])
    func aRedirectIsNotFollowedNorCountedAsDelivered(_ status: Int) async throws {
        let rig = try Rig()
        try rig.append(3)
        let server = try RawHTTPServer { number in
            number == 0
                ? .init(bytes: RawHTTPServer.response(status, ["Location: /elsewhere"]))
                : .init(bytes: RawHTTPServer.response(200))
        }
        defer { server.stop() }
        let uploader = try rig.uploader(server.url)
        #expect(await uploader.flush() == .empty)
        #expect(server.requestPaths == ["/batch", "/batch"], "the 3xx was retried at the same URL, not followed")
        #expect(uploader.tally.delivered == 3)
        #expect(uploader.tally.retries == 1)
        #expect(rig.errors.all.contains { if case .rejectedByServer(status, _, _) = $0 { true } else { false } })
    }
}
