import Anna
import AnnaCollector
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import GRDB
import Testing

/// Child processes appending or uploading are SIGKILLed at points spread over their first
/// 40 ms of work (120 ms in the test of two destinations); nothing appended is torn, nothing
/// committed is lost. ANNA_KILL_ROUNDS sets
/// the rounds of each test: 20 by default (`make test`), 200 in `make test-crash`; the test of
/// two destinations runs at least 200 in either.
@Suite struct OutboxKillTests {
    static let rounds = ProcessInfo.processInfo.environment["ANNA_KILL_ROUNDS"].flatMap(Int.init) ?? 20
    /// The rounds of the test of two destinations: never fewer than 200.
    static let twoDestinationRounds = max(200, rounds)
    static let helper = BuildProducts.executable("anna-outbox-crash-helper")

    /// When round `round` of `rounds` kills: a random point in its own slice of 0...`span` ms,
    /// so the rounds of a short run still cover the whole span.
    static func killDelay(round: Int, of rounds: Int, span: Int = 40, using generator: inout some RandomNumberGenerator) -> Int {
        (round * (span + 1) + Int.random(in: 0...span, using: &generator)) / max(rounds, 1)
    }

    /// Runs the helper with `arguments`; it SIGKILLs itself `milliseconds` after its outbox is
    /// open. Returns how it ended.
    static func runAndKill(_ arguments: [String], afterMilliseconds milliseconds: Int) async throws -> ChildProcess.Output {
        try await ChildProcess.run(executable: helper, arguments: arguments + ["--kill-after", "\(milliseconds)"], timeout: 120)
    }

    /// Whether `output` is the helper's end by its own SIGKILL.
    static func killed(_ output: ChildProcess.Output) -> Bool { output.signalled && output.status == SIGKILL }

    /// The number of waiting results, and those from the `from`th on (nil: an entry that
    /// does not decode).
    static func messageRows(in path: String, from: Int) throws -> (Int, [OutboxMessage?]) {
        let pending = try OutboxFileReader.pending(path: path)
        return (pending.count, pending.dropFirst(from).map(\.message))
    }

    static func messageIDs(in path: String) throws -> Set<String> {
        Set(try OutboxFileReader.pending(path: path).compactMap(\.message?.messageId))
    }

    @Test func anAppendingProcessKilledAtRandomLeavesAnExactPrefix() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        var generator = SystemRandomNumberGenerator()
        var previous = 0
        var grew = 0
        for round in 0..<Self.rounds {
            let delay = Self.killDelay(round: round, of: Self.rounds, using: &generator)
            let output = try await Self.runAndKill(["append", path], afterMilliseconds: delay)
            #expect(Self.killed(output), "round \(round): the helper ended by itself with \(output.status): \(output.stderr)")
            // Read the file as it is on disk, without the outbox's own recovery, so a torn entry
            // shows: the results checked in earlier rounds (from the last one on) and the new ones.
            let (count, rows) = try Self.messageRows(in: path, from: max(0, previous - 1))
            for (offset, row) in rows.enumerated() {
                let index = max(0, previous - 1) + offset
                guard let row, let result = try? JSONValue(parsing: row.result) else {
                    Issue.record("round \(round): result \(index) does not decode: \(String(describing: row))")
                    return
                }
                // Each round appends under "crash-<its first index>", numbering from 0.
                let start = row.session.hasPrefix("crash-") ? Int(row.session.dropFirst(6)) : nil
                guard let start, row.seq == Int64(index - start), result.objectValue?["i"]?.numberValue == Double(index),
                    row.time == Double(index), row.messageId == "\(row.session)#\(row.seq)"
                else {
                    Issue.record("round \(round): result \(index) is \(row), not the \(index)th result")
                    return
                }
            }
            #expect(count >= previous, "round \(round): rows went from \(previous) to \(count)")
            if count > previous { grew += 1 }
            previous = count
            let outbox = try Outbox(path: path)
            #expect(outbox.salvage == nil)
            #expect(try outbox.stats().pending == count)
            outbox.close()
        }
        // Not vacuous: many kills landed after a commit (on a loaded machine the first commit
        // of a round may come after the kill, so not most of them).
        #expect(grew > Self.rounds / 4, "the helper appended in only \(grew) of \(Self.rounds) rounds")
        print("append kill test: \(Self.rounds) kills, \(grew) after a commit, \(Self.rounds - grew) before any; \(previous) rows")
    }

    @Test func anUploadingProcessKilledAtRandomLosesNothing() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        let outbox = try Outbox(path: path)
        for index in 0..<2000 {
            try outbox.append(AnalyticsResult(value: ["n": .number(Double(index))]), session: "s\(index % 3)", time: 0)
        }
        outbox.close()
        let before = try Self.messageIDs(in: path)
        #expect(before.count == 2000)
        var failures = FailureInjection()
        failures.delay = .milliseconds(3)
        let server = try await RunningCollector(storePath: folder.file("collected.sqlite"), failures: failures)
        var generator = SystemRandomNumberGenerator()
        var kills = 0
        for round in 0..<Self.rounds {
            let delay = Self.killDelay(round: round, of: Self.rounds, using: &generator)
            let output = try await Self.runAndKill(["upload", path, server.url, "4"], afterMilliseconds: delay)
            if Self.killed(output) { kills += 1 }
            #expect(
                Self.killed(output) || (!output.signalled && output.status == 0),
                "round \(round): the helper failed with \(output.status): \(output.stderr)")
        }
        #expect(kills > 0, "no round was killed: the helper emptied the outbox at once")
        let final = try Outbox(path: path)
        let uploader = try OutboxUploader(outbox: final, configuration: UploadConfiguration(url: server.url))
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        final.close()
        await server.stop()
        let collected = try server.storedIDs()
        #expect(collected == before, "lost: \(before.subtracting(collected).count), unexpected: \(collected.subtracting(before).count)")
        let requests = server.collector.requests
        let sent = requests.reduce(0) { $0 + $1.count }
        // Kills between a 2xx and the delete resend a batch: the collector drops those copies.
        print(
            "upload kill test: \(kills) kills in \(Self.rounds) rounds, \(requests.count) requests, \(sent) messages sent for \(collected.count) distinct"
        )
    }

    /// One process appends and uploads to two destinations at once, each with its uploader:
    /// "good" in Segment's format to a recording endpoint, "bad" in Anna's to a collector that
    /// answers 503 throughout. It is SIGKILLed ≥ 200 times. Then "good" is flushed to the same
    /// endpoint and "bad" to a second, healthy collector: each received every result committed
    /// (every session's positions up to its `nextSeq`), each once, and nothing else.
    @Test func aProcessUploadingToTwoDestinationsKilledAtRandomLosesAndDuplicatesNothing() async throws {
        let started = ContinuousClock.now
        let rounds = Self.twoDestinationRounds
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        let good = try SegmentRecorder(delay: 2)
        defer { good.stop() }
        let failing = try await RunningCollector(storePath: folder.file("failing.sqlite"), failures: .failing(503, times: -1))
        var generator = SystemRandomNumberGenerator()
        var kills = 0
        var complaints: [String] = []
        for round in 0..<rounds {
            // The uploaders' first requests leave about 40 ms after the outbox is open: 120 ms
            // spreads the kills over start-up, appends alone, and both uploaders at work.
            let delay = Self.killDelay(round: round, of: rounds, span: 120, using: &generator)
            let output = try await Self.runAndKill(["both", path, good.url, failing.url, "both-\(round)"], afterMilliseconds: delay)
            guard Self.killed(output) else {
                Issue.record("round \(round): the helper ended by itself with \(output.status): \(output.stderr)")
                break
            }
            kills += 1
            complaints += output.stderrLines.map { "round \(round): \($0)" }
        }
        await failing.stop()
        #expect(kills >= 200, "only \(kills) kills")
        #expect(complaints.isEmpty, "the helper reported: \(complaints.prefix(5))")
        // "bad" was tried throughout and never delivered anything.
        let badAttempts = failing.collector.requests.count
        #expect(badAttempts > 0, "the uploader of \"bad\" never sent a request")
        #expect(try failing.collector.store.count() == 0)

        // The file as the kills left it. Every result committed is in `session` (written in the
        // transaction of its rows), so those are the results appended: each round's session,
        // positions 0..<nextSeq.
        let file = try Self.destinationRows(in: path)
        let appended = Set(file.sessions.flatMap { name, next in (0..<next).map { MessageID.make(session: name, seq: $0) } })
        #expect(file.sessions.keys.allSatisfy { $0.hasPrefix("both-") }, "sessions: \(file.sessions.keys.sorted().prefix(5))")
        #expect(file.deadLetters == 0)
        // Nothing of "bad" was delivered, so its queue holds every committed result, each once.
        let badRows = file.rows["bad", default: []]
        let badQueued = Set(badRows)
        #expect(badRows.count == badQueued.count, "\"bad\" has \(badRows.count - badQueued.count) duplicated rows")
        let badMissing = appended.subtracting(badQueued).count
        let badExtra = badQueued.subtracting(appended).count
        #expect(badMissing == 0 && badExtra == 0, "\"bad\"'s queue lacks \(badMissing) committed results, has \(badExtra) others")
        // "good": what is still queued and what was delivered make every committed result (a
        // kill between the 2xx and the delete leaves both).
        let goodRows = file.rows["good", default: []]
        let goodQueued = Set(goodRows)
        #expect(goodRows.count == goodQueued.count, "\"good\" has \(goodRows.count - goodQueued.count) duplicated rows")
        let deliveredDuringKills = good.snapshot
        let goodMissing = appended.subtracting(deliveredDuringKills.ids).subtracting(goodQueued).count
        let goodExtra = goodQueued.union(deliveredDuringKills.ids).subtracting(appended).count
        #expect(
            goodMissing == 0 && goodExtra == 0,
            "\"good\": \(goodMissing) committed results neither queued nor delivered, \(goodExtra) others queued or delivered")
        // Not vacuous: most rounds committed results, "good" delivered during the kills.
        #expect(file.sessions.count > rounds / 4, "only \(file.sessions.count) of \(rounds) rounds committed a result")
        #expect(!deliveredDuringKills.ids.isEmpty, "\"good\" delivered nothing while the process was being killed")

        // The final flushes: "good" to the same endpoint, "bad" to a second, healthy collector.
        var configuration = OutboxConfiguration()
        configuration.destinations = ["good", "bad"]
        let outbox = try Outbox(path: path, configuration: configuration)
        #expect(outbox.salvage == nil)
        var toGood = UploadConfiguration(url: good.url, format: .segment)
        toGood.destination = "good"
        toGood.apiKey = "kill-test"
        let goodUploader = try OutboxUploader(outbox: outbox, configuration: toGood)
        #expect(await goodUploader.flush(timeout: Rig.drainDeadline) == .empty)
        let healthy = try await RunningCollector(storePath: folder.file("healthy.sqlite"))
        var toBad = UploadConfiguration(url: healthy.url)
        toBad.destination = "bad"
        let badUploader = try OutboxUploader(outbox: outbox, configuration: toBad)
        #expect(await badUploader.flush(timeout: Rig.drainDeadline) == .empty)
        await healthy.stop()
        let stats = try outbox.stats()
        #expect(stats.pending == 0 && stats.inFlight == 0 && stats.deadLetter == 0, "left: \(stats)")
        outbox.close()

        // "good": every committed result once (the endpoint keeps each ID once and counts the
        // copies sent again), nothing else, each event in Segment's shape with Anna's ID.
        let received = good.snapshot
        #expect(received.defects.isEmpty, "Segment bodies: \(received.defects.prefix(5))")
        let goodLost = appended.subtracting(received.ids).count
        let goodUnexpected = received.ids.subtracting(appended).count
        #expect(goodLost == 0 && goodUnexpected == 0, "\"good\": lost \(goodLost), not appended \(goodUnexpected)")
        // "bad": every committed result stored once by the healthy collector, nothing else.
        let stored = try healthy.collector.store.messages()
        let storedIDs = Set(stored.map(\.messageId))
        let badLost = appended.subtracting(storedIDs).count
        let badUnexpected = storedIDs.subtracting(appended).count
        #expect(stored.count == storedIDs.count, "the healthy collector stored an ID twice")
        #expect(badLost == 0 && badUnexpected == 0, "\"bad\": lost \(badLost), not appended \(badUnexpected)")
        for message in stored {
            let value = try JSONValue(parsing: message.result)
            guard value.objectValue?["i"]?.numberValue == Double(message.seq), message.messageId.hasSuffix("#\(message.seq)") else {
                Issue.record("the healthy collector stored \(message.messageId) as \(message.result)")
                break
            }
        }
        let requests = healthy.collector.requests.filter { $0.status == 200 }
        let badCopies = requests.reduce(0) { $0 + $1.count } - requests.reduce(0) { $0 + $1.new }
        let seconds = (ContinuousClock.now - started).inSeconds
        print(
            """
            two-destination kill test: \(kills) kills in \(rounds) rounds, \(file.sessions.count) committing; \(appended.count) results \
            appended; "good" (Segment): \(deliveredDuringKills.ids.count) delivered in \(deliveredDuringKills.requests) requests \
            during the kills, \(received.ids.count) in all, \(received.duplicates) copies dropped, lost \(goodLost), not appended \
            \(goodUnexpected); "bad" (Anna): \(badAttempts) requests answered 503, \(storedIDs.count) stored after the flush, \
            \(badCopies) copies dropped, lost \(badLost), not appended \(badUnexpected); \(String(format: "%.1f", seconds)) s
            """)
    }

    /// What an outbox file holds, read without the outbox: each destination's message IDs (in
    /// stored order, so duplicates show), the sessions' `nextSeq` and the dead letters.
    static func destinationRows(in path: String) throws -> (rows: [String: [String]], sessions: [String: Int64], deadLetters: Int) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var rows: [String: [String]] = [:]
            for pending in try OutboxFileReader.pending(db) {
                rows[pending.destination, default: []].append(pending.message?.messageId ?? "(unreadable)")
            }
            var sessions: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, nextSeq FROM session") { sessions[row["name"]] = row["nextSeq"] }
            return (rows, sessions, try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter") ?? 0)
        }
    }
}

/// A loopback endpoint of Segment's batch API: reads each body's `batch[]`, keeps each event's
/// `messageId` once and counts the copies it already had, notes any event not in the shape the
/// kill test's helper sends (a track "tick" whose `properties.i` is the position after the ID's
/// `#`), and answers 200 after `delay` milliseconds, so kills land between its answer and the
/// outbox's delete.
final class SegmentRecorder: Sendable {
    struct Received: Sendable {
        var ids: Set<String> = []
        var duplicates = 0
        var requests = 0
        var defects: [String] = []
    }

    private final class Log: Sendable {
        let received = Locked(Received())

        func record(_ body: String) {
            var ids: [String] = []
            var defects: [String] = []
            do {
                let object = try JSONValue(parsing: body).objectValue
                if object?["writeKey"]?.stringValue != "kill-test" { defects.append("no writeKey") }
                guard let batch = object?["batch"]?.arrayValue else { throw SegmentShape(detail: "no batch") }
                for event in batch {
                    let fields = event.objectValue
                    guard let id = fields?["messageId"]?.stringValue, let hash = id.lastIndex(of: "#"),
                        let seq = Double(id[id.index(after: hash)...]), fields?["type"]?.stringValue == "track",
                        fields?["event"]?.stringValue == "tick", fields?["properties"]?.objectValue?["i"]?.numberValue == seq,
                        fields?["anonymousId"]?.stringValue?.isEmpty == false
                    else {
                        defects.append("not the event sent: \(event.jsonText.prefix(300))")
                        continue
                    }
                    ids.append(id)
                }
            } catch {
                defects.append("\(error): \(body.prefix(300))")
            }
            received.withLock { received in
                received.requests += 1
                received.defects += defects
                for id in ids where !received.ids.insert(id).inserted { received.duplicates += 1 }
            }
        }
    }

    private struct SegmentShape: Error {
        var detail: String
    }

    private let log: Log
    private let server: RawHTTPServer

    var url: String { "http://127.0.0.1:\(server.port)/v1/batch" }
    var snapshot: Received { log.received.withLock { $0 } }

    init(delay milliseconds: Int) throws {
        let log = Log()
        self.log = log
        server = try RawHTTPServer { _, body in
            log.record(body)
            if milliseconds > 0 { usleep(useconds_t(milliseconds * 1000)) }
            return RawHTTPServer.Answer(bytes: RawHTTPServer.response(200, body: #"{"success":true}"#))
        }
    }

    func stop() { server.stop() }
}
