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
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM result ORDER BY session, seq")
            while let row = try rows.next() {
                func text(_ column: Column) -> String {
                    (row[column] as String?).map { JSONValue.string($0).jsonText } ?? "null"
                }
                let resultText: String = row[MessageColumn.result]
                let result: String
                do {
                    result = try JSONValue(parsing: resultText).jsonText
                } catch {
                    result = JSONValue.string(resultText).jsonText + ",\"resultMalformed\":" + JSONValue.string("\(error)").jsonText
                }
                let seq: Int64 = row[MessageColumn.seq]
                let receivedAt: Double = row[CollectedMessage.receivedAt]
                try body(
                    "{\"messageId\":\(text(MessageColumn.messageId)),\"session\":\(text(MessageColumn.session)),\"seq\":\(seq),"
                        + "\"time\":\(text(MessageColumn.time)),\"task\":\(text(MessageColumn.task)),\"path\":\(text(MessageColumn.path)),"
                        + "\"event\":\(text(MessageColumn.event)),\"result\":\(result),\"receivedAt\":\(receivedAt)}")
            }
        }
    }

    /// Stores the messages not seen before; returns how many were new.
    func store(_ messages: [OutboxMessage]) throws -> Int {
        let now = Date().timeIntervalSince1970
        return try database.write { db in
            let insert = try db.cachedStatement(sql: CollectedMessage.insertSQL)
            var new = 0
            for message in messages {
                insert.setUncheckedArguments(CollectedMessage(message: message, receivedAt: now).arguments)
                try insert.execute()
                new += db.changesCount
            }
            return new
        }
    }

    /// Every stored message, by session and sequence number.
    public func messages() throws -> [OutboxMessage] {
        try database.read { db in
            try CollectedMessage.fetchAll(db, sql: "SELECT * FROM result ORDER BY session, seq").map(\.message)
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
