import AnnaOutbox
import CoreJS
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

    /// Opens the store at `path` to read it only: nothing is created or changed.
    /// - Throws: ``CollectorStoreError/notAStore(path:reason:)`` when the file cannot be opened
    ///   or is not a collector's store.
    public init(readingAt path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            let hasTable = try database.read { db in try db.tableExists("result") }
            guard hasTable else { throw CollectorStoreError.notAStore(path: path, reason: "it has no result table") }
        } catch let error as CollectorStoreError {
            throw error
        } catch {
            throw CollectorStoreError.notAStore(path: path, reason: "\(error)")
        }
    }

    /// Hands each stored message to `body` as one line of JSON (by session and sequence number):
    /// `{"messageId", "session", "seq", "time", "task", "path", "event", "result", "receivedAt"}`,
    /// the result as the JSON it was sent as, `receivedAt` in seconds since 1970.
    public func forEachLine(_ body: (String) throws -> Void) throws {
        try database.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT messageId, session, seq, time, task, path, event, result, receivedAt FROM result ORDER BY session, seq")
            while let row = try rows.next() {
                func text(_ index: Int) -> String {
                    (row[index] as String?).map { JSONValue.string($0).jsonText } ?? "null"
                }
                let resultText: String = row[7]
                let result: String
                do {
                    result = try JSONValue(parsing: resultText).jsonText
                } catch {
                    result = JSONValue.string(resultText).jsonText + ",\"resultMalformed\":" + JSONValue.string("\(error)").jsonText
                }
                let seq: Int64 = row[2]
                let receivedAt: Double = row[8]
                try body(
                    "{\"messageId\":\(text(0)),\"session\":\(text(1)),\"seq\":\(seq),\"time\":\(text(3)),\"task\":\(text(4)),"
                        + "\"path\":\(text(5)),\"event\":\(text(6)),\"result\":\(result),\"receivedAt\":\(receivedAt)}")
            }
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

/// A file that `anna collect --list` cannot read as a collector's store.
public enum CollectorStoreError: Error, CustomStringConvertible {
    /// The file is not an SQLite database with the collector's `result` table.
    case notAStore(path: String, reason: String)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case let .notAStore(path, reason):
            return "\(path) is not a store of anna collect (\(reason)): give the file passed as --store"
        }
    }
}
