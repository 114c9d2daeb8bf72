import GRDB

/// The outbox file's tables.
///
/// - `message`: results waiting to be sent, in append order (`id`); `bytes` is the size of
///   the message on the wire, `appendedAt` (seconds since the epoch) serves the age cap,
///   `checksum` (``OutboxMessage/checksum``) catches rows damaged on disk.
/// - `deadLetter`: results set aside (refused by the server, or unreadable), with the
///   status and the response body.
/// - `session`: the next sequence number of each session, so numbers are never reused after
///   the rows that had them were sent and deleted.
/// - `dropCount`: how many results were dropped, by reason.
/// - `state`: `inFlight`, the rows of the request under way (0 when none).
enum OutboxSchema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE message (
                      id INTEGER PRIMARY KEY, messageId TEXT NOT NULL, session TEXT NOT NULL, seq INTEGER NOT NULL,
                      time REAL NOT NULL, task TEXT, path TEXT, event TEXT, result TEXT NOT NULL,
                      bytes INTEGER NOT NULL, appendedAt REAL NOT NULL, checksum INTEGER NOT NULL);
                    CREATE TABLE deadLetter (
                      id INTEGER PRIMARY KEY, messageId TEXT NOT NULL, session TEXT NOT NULL, seq INTEGER NOT NULL,
                      time REAL NOT NULL, task TEXT, path TEXT, event TEXT, result TEXT NOT NULL,
                      status INTEGER NOT NULL, responseBody TEXT NOT NULL, reason TEXT NOT NULL, deadAt REAL NOT NULL);
                    CREATE TABLE session (name TEXT PRIMARY KEY, nextSeq INTEGER NOT NULL);
                    CREATE TABLE dropCount (reason TEXT PRIMARY KEY, count INTEGER NOT NULL);
                    CREATE TABLE state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
                    """)
        }
        return migrator
    }

    /// Every table's columns, as the migration makes them.
    static let expectedColumns: [String: [String]] = [
        "message": [
            "id", "messageId", "session", "seq", "time", "task", "path", "event", "result", "bytes", "appendedAt", "checksum",
        ],
        "deadLetter": [
            "id", "messageId", "session", "seq", "time", "task", "path", "event", "result", "status", "responseBody", "reason",
            "deadAt",
        ],
        "session": ["name", "nextSeq"],
        "dropCount": ["reason", "count"],
        "state": ["key", "value"],
    ]

    /// Throws ``OutboxDamage`` unless every table has its columns (a damaged schema can
    /// still pass `quick_check`).
    static func verify(_ db: Database) throws {
        for (table, columns) in expectedColumns {
            let found = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map { String.fromDatabaseValue($0[1]) ?? "" }
            guard found == columns else {
                throw OutboxDamage(detail: "the table \(table) has the columns \(found), not \(columns)")
            }
        }
    }

    /// The columns of a message, in the order ``OutboxStore`` selects them.
    static let messageColumns = "id, messageId, session, seq, time, task, path, event, result, checksum"
}
