import AnnaOutbox
import Foundation
import GRDB

/// The collector's SQLite file: one row per distinct message ID.
public final class CollectorStore: Sendable {
    private let database: DatabaseQueue

    /// Opens (creating) the store at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(10)
        database = try DatabaseQueue(path: path, configuration: configuration)
        try database.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS result (
                      messageId TEXT PRIMARY KEY, session TEXT NOT NULL, seq INTEGER NOT NULL, time TEXT NOT NULL,
                      task TEXT, path TEXT, event TEXT, result TEXT NOT NULL, receivedAt REAL NOT NULL)
                    """)
        }
    }

    /// Stores the messages not seen before; returns how many were new.
    func store(_ messages: [WireFormat.ReceivedMessage]) throws -> Int {
        let now = Date().timeIntervalSince1970
        return try database.write { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO result(messageId, session, seq, time, task, path, event, result, receivedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            var new = 0
            for message in messages {
                try insert.execute(arguments: [
                    message.messageId, message.session, message.seq, message.time, message.task, message.path,
                    message.event, message.result, now,
                ])
                new += db.changesCount
            }
            return new
        }
    }

    /// Every stored message, by session and sequence number.
    public func messages() throws -> [WireFormat.ReceivedMessage] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT messageId, session, seq, time, task, path, event, result FROM result ORDER BY session, seq"
            ).map { row in
                WireFormat.ReceivedMessage(
                    messageId: row[0], session: row[1], seq: row[2], time: row[3], task: row[4], path: row[5],
                    event: row[6], result: row[7])
            }
        }
    }

    /// How many distinct messages are stored.
    public func count() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM result") ?? 0 }
    }
}
