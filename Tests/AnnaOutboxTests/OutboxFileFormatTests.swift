import Anna
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import GRDB
import Testing

/// A file written by an earlier version of the outbox, made here with that version's own SQL
/// (its tables, its migration record, its rows and checksums as literals), opens and is
/// delivered unchanged: the file format is a promise to every file already on a disk.
@Suite struct OutboxFileFormatTests {
    /// The statements the first version ran, in order: GRDB's migration table, the `v1`
    /// migration's tables, and rows as its writer, uploader and counters stored them.
    static let earlierFile = [
        "PRAGMA journal_mode = WAL",
        "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)",
        """
        CREATE TABLE message (id INTEGER PRIMARY KEY, messageId TEXT NOT NULL, session TEXT NOT NULL, \
        seq INTEGER NOT NULL, time REAL NOT NULL, task TEXT, path TEXT, event TEXT, result TEXT NOT NULL, \
        bytes INTEGER NOT NULL, appendedAt REAL NOT NULL, checksum INTEGER NOT NULL)
        """,
        """
        CREATE TABLE deadLetter (id INTEGER PRIMARY KEY, messageId TEXT NOT NULL, session TEXT NOT NULL, \
        seq INTEGER NOT NULL, time REAL NOT NULL, task TEXT, path TEXT, event TEXT, result TEXT NOT NULL, \
        status INTEGER NOT NULL, responseBody TEXT NOT NULL, reason TEXT NOT NULL, deadAt REAL NOT NULL)
        """,
        "CREATE TABLE session (name TEXT PRIMARY KEY, nextSeq INTEGER NOT NULL) WITHOUT ROWID",
        "CREATE TABLE dropCount (reason TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID",
        "CREATE TABLE state (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
        "INSERT INTO grdb_migrations VALUES ('v1')",
        """
        INSERT INTO message(messageId, session, seq, time, task, path, event, result, bytes, appendedAt, checksum) \
        VALUES ('old#0', 'old', 0, 1700000000000.0, 't/old', '/old', 'e', '{"n":0}', 142, 1700000000.0, -7000276923802171499)
        """,
        """
        INSERT INTO message(messageId, session, seq, time, task, path, event, result, bytes, appendedAt, checksum) \
        VALUES ('old#1', 'old', 1, 1700000000001.5, NULL, NULL, NULL, '[1,"two",null]', 143, 1700000000.0, -7059019013808611233)
        """,
        """
        INSERT INTO deadLetter(messageId, session, seq, time, task, path, event, result, status, responseBody, reason, deadAt) \
        VALUES ('old#2', 'old', 2, 1700000000002.0, 't/old', '/old', 'e', '{"bad":true}', 400, '{"error":"no"}', \
        'refused with status 400', 1700000001.0)
        """,
        "INSERT INTO session(name, nextSeq) VALUES ('old', 3)",
        "INSERT INTO dropCount(reason, count) VALUES ('rowCap', 4)",
        "INSERT OR REPLACE INTO state(key, value) VALUES ('inFlight', 0)",
    ]

    static func makeEarlierFile(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            for statement in earlierFile { try db.execute(sql: statement) }
        }
        try queue.close()
    }

    @Test func aFileOfTheFirstVersionOpensAndIsDeliveredUnchanged() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("earlier.sqlite")
        try Self.makeEarlierFile(at: path)

        let errors = ErrorLog()
        let outbox = try Outbox(path: path, onError: errors.handler)
        #expect(outbox.salvage == nil, "taken for a damaged file: \(String(describing: outbox.salvage))")
        let stats = try outbox.stats()
        #expect(stats.pending == 2 && stats.deadLetter == 1 && stats.dropped == ["rowCap": 4], "\(stats)")
        let dead = try #require(try outbox.deadLetters().first)
        #expect(dead.messageId == "old#2" && dead.session == "old" && dead.seq == 2)
        #expect(dead.task == "t/old" && dead.path == "/old" && dead.event == "e" && dead.result == #"{"bad":true}"#)
        #expect(dead.status == 400 && dead.responseBody == #"{"error":"no"}"# && dead.reason == "refused with status 400")
        #expect(dead.deadAt == 1_700_000_001)

        let transport = CapturingTransport()
        let uploader = try OutboxUploader(
            outbox: outbox, configuration: UploadConfiguration(url: "http://127.0.0.1:9/unused"), transport: transport)
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(transport.malformed.isEmpty, "\(transport.malformed)")
        let messages = transport.messages
        try #require(messages.count == 2, "\(messages); reported: \(errors.all)")
        #expect(messages[0].messageId == "old#0" && messages[0].session == "old" && messages[0].seq == 0)
        #expect(messages[0].task == "t/old" && messages[0].path == "/old" && messages[0].event == "e")
        #expect(messages[0].result == #"{"n":0}"#)
        #expect(messages[1].messageId == "old#1" && messages[1].seq == 1)
        #expect(messages[1].task == nil && messages[1].path == nil && messages[1].event == nil)
        #expect(messages[1].result == #"[1,"two",null]"#)
        let body = transport.bodies.joined()
        #expect(body.contains(#""time":"2023-11-14T22:13:20.000Z""#) && body.contains(#""time":"2023-11-14T22:13:20.001Z""#), "\(body)")

        // The requeued dead letter goes out with its ID; the session table still knows "old".
        #expect(try outbox.requeueDeadLetters() == (requeued: 1, kept: 0))
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        #expect(transport.messages.map(\.messageId) == ["old#0", "old#1", "old#2"])
        try outbox.append(AnalyticsResult(value: 1), session: "old", time: 0)
        outbox.synchronize()
        #expect(errors.all.contains { if case .sessionReused(_, "old", 3) = $0 { true } else { false } }, "\(errors.all)")
        outbox.close()
    }
}
