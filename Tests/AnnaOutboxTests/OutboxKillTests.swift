import Anna
import AnnaCollector
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import GRDB
import Testing

/// Child processes appending or uploading are SIGKILLed at points spread over their first
/// 40 ms of work; nothing appended is torn, nothing committed is lost. ANNA_KILL_ROUNDS sets
/// the rounds of each test: 20 by default (`make test`), 200 in `make test-crash`.
@Suite struct OutboxKillTests {
    static let rounds = ProcessInfo.processInfo.environment["ANNA_KILL_ROUNDS"].flatMap(Int.init) ?? 20
    static let helper = BuildProducts.executable("anna-outbox-crash-helper")

    /// When round `round` of `rounds` kills: a random point in its own slice of 0...40 ms, so
    /// the rounds of a short run still cover the whole span.
    static func killDelay(round: Int, of rounds: Int, using generator: inout some RandomNumberGenerator) -> Int {
        (round * 41 + Int.random(in: 0..<41, using: &generator)) / max(rounds, 1)
    }

    /// Runs the helper with `arguments`; it SIGKILLs itself `milliseconds` after its outbox is
    /// open. Returns how it ended.
    static func runAndKill(_ arguments: [String], afterMilliseconds milliseconds: Int) async throws -> ChildProcess.Output {
        try await ChildProcess.run(executable: helper, arguments: arguments + ["--kill-after", "\(milliseconds)"], timeout: 120)
    }

    /// Whether `output` is the helper's end by its own SIGKILL.
    static func killed(_ output: ChildProcess.Output) -> Bool { output.signalled && output.status == SIGKILL }

    /// The number of rows, and the rows from the `from`th on.
    static func messageRows(in path: String, from: Int) throws -> (Int, [Row]) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM message") ?? 0,
                try Row.fetchAll(db, sql: "SELECT session, seq, result, time FROM message WHERE id > ? ORDER BY id", arguments: [from])
            )
        }
    }

    static func messageIDs(in path: String) throws -> Set<String> {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchSet(db, sql: "SELECT messageId FROM message") }
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
            // Read the file as it is on disk, without the outbox's own recovery, so a torn row
            // shows: the rows checked in earlier rounds (from the last one on) and the new ones.
            let (count, rows) = try Self.messageRows(in: path, from: max(0, previous - 1))
            for (offset, row) in rows.enumerated() {
                let index = max(0, previous - 1) + offset
                let seq: Int64 = row["seq"]
                let result = try JSONValue(parsing: row["result"] as String)
                // Each round appends under "crash-<its first index>", numbering from 0.
                let session: String = row["session"]
                let start = session.hasPrefix("crash-") ? Int(session.dropFirst(6)) : nil
                guard let start, seq == Int64(index - start), result.objectValue?["i"]?.numberValue == Double(index),
                    row["time"] == Double(index)
                else {
                    Issue.record("round \(round): row \(index) is \(row), not the \(index)th result")
                    return
                }
            }
            #expect(count == max(0, previous - 1) + rows.count, "round \(round): the row IDs are not dense")
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
}
