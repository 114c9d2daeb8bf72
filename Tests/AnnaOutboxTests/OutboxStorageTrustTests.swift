import Anna
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import GRDB
import Testing

/// The file side: the drain at exit, one writer per file, message IDs that repeat on a
/// replay, the depth bound, foreign files left alone, and a disk that fills up.
@Suite(.timeLimit(.minutes(2))) struct OutboxStorageTrustTests {
    static func ids(in path: String) throws -> [String] {
        try OutboxFileReader.pending(path: path).map { $0.message?.messageId ?? "(unreadable)" }
    }

    @Test func drainWaitsUntilEverythingAppendedIsInTheFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        let outbox = try Outbox(path: path)
        let sink = outbox.sink(session: "exit")
        for index in 0..<20_000 {
            try sink.append(AnalyticsResult(value: ["n": .number(Double(index))]), time: 0)
        }
        #expect(sink.drain(before: .now + .seconds(120)) == 0)
        // Read by another connection before the outbox is closed: the rows are committed.
        #expect(try Self.ids(in: path).count == 20_000)
        outbox.close()
        let reopened = try Outbox(path: path)
        #expect(try reopened.stats().pending == 20_000)
        reopened.close()
    }

    @Test func drainReturnsAtItsDeadlineWithTheCountLeft() throws {
        let rig = try Rig()
        // A deadline already passed: whatever is not yet written is counted, at once.
        for index in 0..<5000 { try rig.outbox.append(AnalyticsResult(value: .number(Double(index))), session: "s", time: 0) }
        let left = rig.outbox.drain(before: .now - .seconds(1))
        #expect(left >= 0 && left <= 5000)
        #expect(rig.outbox.drain(before: .now + .seconds(120)) == 0)
    }

    @Test func aSecondWriterOnTheSameFileIsRefusedClearly() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        let first = try Outbox(path: path)
        let second = try Outbox(path: path)
        try first.append(AnalyticsResult(value: 1), session: "s", time: 0)
        #expect {
            try second.append(AnalyticsResult(value: 2), session: "s", time: 0)
        } throws: { error in
            (error as? OutboxError)?.description.contains("another Outbox appends to this file") == true
        }
        first.close()
        // Once the first is closed, the second may write.
        try second.append(AnalyticsResult(value: 3), session: "t", time: 0)
        second.close()
        #expect(try Self.ids(in: path) == ["s#0", "t#0"])
    }

    @Test func replayingASessionRepeatsItsMessageIDs() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        for _ in 0..<2 {
            let outbox = try Outbox(path: path)
            let sink = outbox.sink(session: "replayed")
            for index in 0..<3 { try sink.append(AnalyticsResult(value: .number(Double(index))), time: 0) }
            outbox.close()
        }
        #expect(try Self.ids(in: path) == ["replayed#0", "replayed#1", "replayed#2", "replayed#0", "replayed#1", "replayed#2"])
    }

    static func nested(_ depth: Int) -> JSONValue {
        var value: JSONValue = 1
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    @Test func aResultNestedDeeperThanTheWireAllowsIsRefusedAtAppend() throws {
        let rig = try Rig()
        try rig.outbox.append(AnalyticsResult(value: Self.nested(WireFormat.maximumResultDepth)), session: "s", time: 0)
        #expect(WireFormat.maximumResultDepth == 509)
        #expect {
            try rig.outbox.append(
                AnalyticsResult(value: Self.nested(510), meta: ResultMeta(task: "t/deep", path: "/", event: "e")), session: "s", time: 0)
        } throws: { error in
            error as? OutboxError == .resultTooDeep(depth: 510, limit: 509, task: "t/deep")
        }
        rig.outbox.synchronize()
        let stats = try rig.outbox.stats()
        #expect(stats.pending == 1)
        #expect(stats.dropped == ["tooDeep": 1])
    }

    @Test func theDeepestResultAcceptedIsTakenByTheCollector() async throws {
        let rig = try Rig()
        try rig.outbox.append(AnalyticsResult(value: Self.nested(WireFormat.maximumResultDepth)), session: "s", time: 0)
        let server = try await rig.collector()
        await rig.expectDrained(try rig.uploader(server.url))
        await server.stop()
        #expect(try server.storedIDs() == ["s#0"])
    }

    @Test func aForeignSQLiteDatabaseIsRefusedAndLeftUnchanged() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("notes.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
            try db.execute(sql: "INSERT INTO note(text) VALUES ('keep me')")
        }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for readOnly in [false, true] {
            var configuration = OutboxConfiguration()
            configuration.readOnly = readOnly
            #expect {
                _ = try Outbox(path: path, configuration: configuration)
            } throws: { error in
                (error as? OutboxError)?.description.contains("not an outbox file (an SQLite database with other tables: note)") == true
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.sqlite"])
    }

    @Test func aTextFileIsRefusedAndLeftUnchanged() throws {
        let folder = try TemporaryFolder()
        try folder.write("notes.txt", "dear diary\n")
        #expect {
            _ = try Outbox(path: folder.file("notes.txt"))
        } throws: { error in
            (error as? OutboxError)?.description.contains("not an outbox file (not an SQLite file)") == true
        }
        #expect(try folder.read("notes.txt") == "dear diary\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.txt"])
    }

    /// A file size limit (`RLIMIT_FSIZE`, in a child process) makes SQLite's writes fail as a
    /// full disk does: what cannot be written is refused, counted and said, never dropped quietly.
    @Test func writesThatFailAreCountedAndTheFileHoldsAnExactPrefix() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        let output = try await OutboxCrashHelper.run(["fill", path, "200000", "20000"])
        #expect(output.status == 0, "\(output.stderr)")
        let fields = Dictionary(
            uniqueKeysWithValues: output.stdout.split(separator: " ").compactMap { pair -> (String, Int)? in
                let parts = pair.split(separator: "=")
                return parts.count == 2 ? (String(parts[0]), Int(parts[1].trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1) : nil
            })
        let accepted = try #require(fields["accepted"])
        let refused = try #require(fields["refused"])
        let lost = try #require(fields["lost"])
        #expect(refused > 0, "the limit was reached: \(output.stdout)")
        #expect(lost == refused + (accepted - (fields["written"] ?? 0)), "\(output.stdout)")
        #expect(output.stderr.contains("could not be written") || output.stderr.contains("writing failed"), "\(output.stderr)")
        let stored = try Self.ids(in: path)
        #expect(stored == (0..<stored.count).map { "fill#\($0)" }, "an exact prefix")
        #expect(stored.count + lost == 20_000, "every result is stored or counted lost")
    }
}

/// Runs `anna-outbox-crash-helper` and captures what it prints.
enum OutboxCrashHelper {
    static func run(_ arguments: [String]) async throws -> ChildProcess.Output {
        try await ChildProcess.run(executable: OutboxKillTests.helper, arguments: arguments)
    }
}
