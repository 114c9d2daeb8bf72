import Anna
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import GRDB
import Testing

/// The identity an outbox keeps in its file: the anonymous ID made once, the user ID of the
/// last identify, the analytics session rotated by the events' own times; a file of the first
/// version migrated with its rows delivered under the current identity; deleteAll forgetting it.
@Suite(.timeLimit(.minutes(2))) struct OutboxIdentityTests {
    typealias Kit = DestinationKit

    static func reopen(_ rig: Rig, configuration: OutboxConfiguration = OutboxConfiguration(), errors: ErrorLog = ErrorLog())
        throws -> Outbox
    {
        try Outbox(path: rig.folder.file("outbox.sqlite"), configuration: configuration, onError: errors.handler)
    }

    /// Every event an uploader of `format` sends for `outbox`'s default destination.
    static func sent(_ outbox: Outbox, format: DeliveryFormat = .segment, sleeper: RecordingSleeper) async throws -> [JSONValue] {
        let transport = Kit.Transport()
        let uploader = try Kit.uploader(outbox, format, transport: transport, sleeper: sleeper) { $0.apiKey = "key" }
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        return transport.requests.flatMap(\.events)
    }

    @Test func theAnonymousIdIsMadeOnceAndKept() throws {
        let rig = try Rig()
        let first = rig.outbox.identity.anonymousId
        #expect(UUID(uuidString: first) != nil && first == first.lowercased(), "\(first)")
        #expect(rig.outbox.identity.userId == nil)
        rig.outbox.close()
        let reopened = try Self.reopen(rig)
        #expect(reopened.identity.anonymousId == first)
        reopened.close()
        let again = try Self.reopen(rig)
        #expect(again.identity.anonymousId == first)
        again.close()
    }

    @Test func resetMakesANewAnonymousIdAndForgetsTheUser() async throws {
        let rig = try Rig()
        let first = rig.outbox.identity.anonymousId
        rig.outbox.identity.setUserId("user-42")
        #expect(rig.outbox.identity.userId == "user-42")
        rig.outbox.identity.reset()
        let second = rig.outbox.identity.anonymousId
        #expect(second != first && UUID(uuidString: second) != nil)
        #expect(rig.outbox.identity.userId == nil)
        try Kit.append(rig.outbox, ["event": "after-reset"], time: 1_700_000_000_000)
        rig.outbox.close()
        let reopened = try Self.reopen(rig)
        #expect(reopened.identity.anonymousId == second)
        #expect(reopened.identity.userId == nil)
        let events = try await Self.sent(reopened, sleeper: rig.sleeper)
        #expect(events.map { $0["anonymousId"] } == [.string(second)])
        #expect(events.first?["userId"] == .null)
        reopened.close()
    }

    @Test func anIdentifyResultSetsTheUserAndCarriesItItself() async throws {
        let rig = try Rig()
        try Kit.append(rig.outbox, ["event": "before"], time: 1_700_000_000_000)
        try Kit.append(rig.outbox, ["type": "identify", "userId": "user-42", "traits": ["plan": "pro"]], time: 1_700_000_001_000)
        #expect(rig.outbox.identity.userId == "user-42")
        try Kit.append(rig.outbox, ["event": "after"], time: 1_700_000_002_000)
        rig.outbox.close()
        let reopened = try Self.reopen(rig)
        #expect(reopened.identity.userId == "user-42", "kept in the file")
        try Kit.append(reopened, ["event": "next-run"], time: 1_700_000_003_000)
        let events = try await Self.sent(reopened, sleeper: rig.sleeper)
        try #require(events.count == 4)
        #expect(events.map { $0["userId"] } == [.null, "user-42", "user-42", "user-42"])
        #expect(events[1]["type"] == "identify" && events[1]["traits"] == ["plan": "pro"])
        reopened.close()
    }

    @Test func identifyFromSwiftSetsTheUserAndQueuesAnIdentify() async throws {
        let rig = try Rig()
        try rig.outbox.identify(userId: "user-77", traits: ["plan": "team"])
        rig.outbox.synchronize()
        #expect(rig.outbox.identity.userId == "user-77")
        let events = try await Self.sent(rig.outbox, format: .amplitude, sleeper: rig.sleeper)
        try #require(events.count == 1)
        #expect(events[0]["event_type"] == "$identify" && events[0]["user_id"] == "user-77")
        #expect(events[0]["user_properties"] == ["$set": ["plan": "team"]])
        let time = try #require(events[0]["time"]?.numberValue)
        #expect(abs(time - Date().timeIntervalSince1970 * 1000) < 600_000, "stamped now: \(time)")
    }

    static func idleConfiguration() -> OutboxConfiguration {
        var configuration = OutboxConfiguration()
        configuration.sessionIdleTimeout = .seconds(60)
        return configuration
    }

    @Test func theSessionRotatesAfterTheIdleTimeOfTheEventsTimes() async throws {
        let rig = try Rig(configuration: Self.idleConfiguration())
        let start = 1_700_000_000_000.0
        #expect(rig.outbox.identity.sessionId == nil)
        // 59 s apart twice: one session; then 61 s apart: a new one, named by its first event's time.
        let times = [start, start + 59_000, start + 118_000, start + 179_000, start + 180_000]
        var sessions: [Int64?] = []
        for (index, time) in times.enumerated() {
            try Kit.append(rig.outbox, ["event": .string("e\(index)")], time: time)
            sessions.append(rig.outbox.identity.sessionId)
        }
        let first = Int64(start)
        let second = Int64(start + 179_000)
        #expect(sessions == [first, first, first, second, second])
        let events = try await Self.sent(rig.outbox, format: .amplitude, sleeper: rig.sleeper)
        #expect(events.map { $0["session_id"]?.numberValue.map(Int64.init) } == sessions)

        // Kept in the file: a result within the idle time of the last goes on with it.
        rig.outbox.close()
        let reopened = try Self.reopen(rig, configuration: Self.idleConfiguration())
        try Kit.append(reopened, ["event": "next-run"], time: start + 200_000)
        #expect(reopened.identity.sessionId == second)
        try Kit.append(reopened, ["event": "much-later"], time: start + 300_000)
        #expect(reopened.identity.sessionId == Int64(start + 300_000))
        reopened.close()
    }

    @Test func aSessionTheAppStartsDoesNotRotate() async throws {
        let rig = try Rig(configuration: Self.idleConfiguration())
        let start = 1_700_000_000_000.0
        try Kit.append(rig.outbox, ["event": "before"], time: start)
        rig.outbox.identity.startSession(id: 4242)
        #expect(rig.outbox.identity.sessionId == 4242)
        try Kit.append(rig.outbox, ["event": "a"], time: start + 1000)
        try Kit.append(rig.outbox, ["event": "b"], time: start + 2 * 3_600_000)
        #expect(rig.outbox.identity.sessionId == 4242, "hours apart, the app's session stays")
        let events = try await Self.sent(rig.outbox, format: .posthog, sleeper: rig.sleeper)
        #expect(events.map { $0["properties"]?["$session_id"] } == [.string(String(Int64(start))), "4242", "4242"])
        // reset() lets it rotate again.
        rig.outbox.identity.reset()
        try Kit.append(rig.outbox, ["event": "c"], time: start + 3 * 3_600_000)
        #expect(rig.outbox.identity.sessionId == Int64(start + 3 * 3_600_000))
    }

    /// Another connection holding the file's write lock (`BEGIN IMMEDIATE`), so the outbox's
    /// writer waits and then takes everything queued meanwhile in one transaction.
    final class HeldWriteLock {
        private let queue: DatabaseQueue

        init(path: String) throws {
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        }

        func release() throws {
            try queue.inDatabase { db in try db.execute(sql: "COMMIT") }
            try queue.close()
        }
    }

    /// Appends `event` at `time` without waiting for it to be written.
    static func appendUnwritten(_ outbox: Outbox, _ event: String, time: Double) throws {
        try outbox.append(AnalyticsResult(value: ["event": .string(event)]), session: "s1", time: time)
    }

    /// A rig (idle timeout 60 s) with one result written at `start`, where `steps` run while
    /// the writer waits on another connection's lock, so what they queue is written in one
    /// transaction; then the outbox is closed. What the file keeps of the session must be what
    /// the last of the steps left, as in memory.
    static func inOneTransaction(start: Double, _ steps: (Outbox) throws -> Void) async throws -> Rig {
        let rig = try Rig(configuration: idleConfiguration())
        try Kit.append(rig.outbox, ["event": "first"], time: start)
        let lock = try HeldWriteLock(path: rig.folder.file("outbox.sqlite"))
        try appendUnwritten(rig.outbox, "blocked", time: start + 1000)
        // Lets the writer take that one and wait on the lock: what follows is queued together.
        try await Task.sleep(for: .milliseconds(200))
        try steps(rig.outbox)
        try lock.release()
        rig.outbox.synchronize()
        rig.outbox.close()
        return rig
    }

    static let start = 1_700_000_000_000.0

    @Test func aResetRightAfterAnAppendForgetsTheSessionInTheFileToo() async throws {
        let rig = try await Self.inOneTransaction(start: Self.start) { outbox in
            try Self.appendUnwritten(outbox, "before-the-reset", time: Self.start + 2000)
            outbox.identity.reset()
        }
        let reopened = try Self.reopen(rig, configuration: Self.idleConfiguration())
        defer { reopened.close() }
        #expect(reopened.identity.sessionId == nil, "reset() forgot the session")
        try Kit.append(reopened, ["event": "after-the-reset"], time: Self.start + 3000)
        #expect(reopened.identity.sessionId == Int64(Self.start + 3000), "a new session after the reset")
    }

    @Test func aSessionStartedRightAfterAnAppendIsTheOneInTheFile() async throws {
        let rig = try await Self.inOneTransaction(start: Self.start) { outbox in
            try Self.appendUnwritten(outbox, "before-the-start", time: Self.start + 2000)
            outbox.identity.startSession(id: 4242)
        }
        let reopened = try Self.reopen(rig, configuration: Self.idleConfiguration())
        defer { reopened.close() }
        #expect(reopened.identity.sessionId == 4242)
    }

    @Test func aResultRightAfterAResetKeepsItsNewSessionInTheFile() async throws {
        let rig = try await Self.inOneTransaction(start: Self.start) { outbox in
            outbox.identity.reset()
            try Self.appendUnwritten(outbox, "after-the-reset", time: Self.start + 2000)
            #expect(outbox.identity.sessionId == Int64(Self.start + 2000), "in memory: a new session")
        }
        let reopened = try Self.reopen(rig, configuration: Self.idleConfiguration())
        defer { reopened.close() }
        #expect(reopened.identity.sessionId == Int64(Self.start + 2000))
        try Kit.append(reopened, ["event": "10 s later"], time: Self.start + 12_000)
        #expect(reopened.identity.sessionId == Int64(Self.start + 2000), "the same session, 10 s later")
    }

    @Test func aResultRightAfterStartSessionKeepsItsTimeInTheFile() async throws {
        let rig = try await Self.inOneTransaction(start: Self.start) { outbox in
            outbox.identity.startSession(id: 4242)
            try Self.appendUnwritten(outbox, "in-the-app-session", time: Self.start + 120_000)
        }
        let reopened = try Self.reopen(rig, configuration: Self.idleConfiguration())
        defer { reopened.close() }
        #expect(reopened.identity.sessionId == 4242)
        // 30 s after the last result, within the idle time: the session goes on.
        try Kit.append(reopened, ["event": "30 s later"], time: Self.start + 150_000)
        #expect(reopened.identity.sessionId == 4242, "rotated as if idle since \(Self.start + 1000)")
    }

    static func migrations(at path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
        }
    }

    @Test func aFileOfTheFirstVersionIsMigratedAndItsRowSentWithTheCurrentIdentity() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("v1.sqlite")
        try OutboxFileFormatTests.makeEarlierFile(at: path)

        let errors = ErrorLog()
        var configuration = OutboxConfiguration()
        configuration.app = AppInfo(name: "Shop", version: "2.0")
        configuration.maximumAge = .seconds(100 * 365 * 86_400)  // the file's rows were appended in 2023
        let outbox = try Outbox(path: path, configuration: configuration, onError: errors.handler)
        #expect(outbox.salvage == nil, "taken for a damaged file: \(String(describing: outbox.salvage))")
        let anonymousId = outbox.identity.anonymousId
        #expect(UUID(uuidString: anonymousId) != nil, "an identity made for the migrated file")
        outbox.identity.setUserId("user-99")
        let stats = try outbox.stats()
        #expect(stats.pending == 2 && stats.destinations[""]?.pending == 2, "\(stats)")

        let sleeper = RecordingSleeper()
        let events = try await Self.sent(outbox, sleeper: sleeper)
        try #require(events.count == 2, "reported: \(errors.all)")
        let event = events[0]
        #expect(event["messageId"] == "old#0")
        #expect(event["type"] == "track" && event["event"] == "t/old" && event["properties"] == ["value": ["n": 0]])
        #expect(event["timestamp"] == .string(Kit.timestamp(milliseconds: 1_700_000_000_000)))
        #expect(event["anonymousId"] == .string(anonymousId), "the current identity")
        #expect(event["userId"] == "user-99")
        #expect(event["context"]?["app"] == ["name": "Shop", "version": "2.0"])
        #expect(errors.all.isEmpty, "\(errors.all)")
        outbox.close()

        // Migrated once: it opens again as a file of this version, with the identity it was given.
        #expect(try Self.migrations(at: path) == ["v1", "v2", "v3"])
        let reopened = try Outbox(path: path, onError: errors.handler)
        #expect(reopened.salvage == nil)
        #expect(reopened.identity.anonymousId == anonymousId && reopened.identity.userId == "user-99")
        reopened.close()
    }

    @Test func deleteAllForgetsTheIdentity() async throws {
        let rig = try Rig()
        let first = rig.outbox.identity.anonymousId
        try rig.outbox.identify(userId: "user-42")
        rig.outbox.synchronize()
        try rig.outbox.deleteAll()
        let second = rig.outbox.identity.anonymousId
        #expect(second != first && UUID(uuidString: second) != nil)
        #expect(rig.outbox.identity.userId == nil)
        try Kit.append(rig.outbox, ["event": "after"], time: 1_700_000_000_000)
        rig.outbox.close()
        let reopened = try Self.reopen(rig)
        #expect(reopened.identity.anonymousId == second, "the new one is kept")
        #expect(reopened.identity.userId == nil)
        let events = try await Self.sent(reopened, sleeper: rig.sleeper)
        #expect(events.map { $0["anonymousId"] } == [.string(second)])
        #expect(events.map { $0["userId"] } == [.null])
        reopened.close()
    }
}
