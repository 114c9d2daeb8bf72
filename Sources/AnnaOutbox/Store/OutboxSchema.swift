import GRDB

/// The outbox file's tables.
///
/// - `message`: results waiting to be sent, in append order (`id`); `bytes` is the size of
///   the message on the wire, `appendedAt` (seconds since the epoch) serves the age cap,
///   `checksum` (``OutboxMessage/checksum``) catches rows damaged on disk (``MessageRecord``).
/// - `deadLetter`: results set aside (refused by the server, or unreadable), with the
///   status and the response body.
/// - `session`: the next sequence number of each session, so numbers are never reused after
///   the rows that had them were sent and deleted.
/// - `dropCount`: how many results were dropped, by reason.
/// - `state`: `inFlight`, the rows of the request under way (0 when none).
///
/// The keyed tables are `WITHOUT ROWID`, so the file has no separate index: `quick_check`,
/// which does not compare an index with its table, then checks every b-tree there is.
enum OutboxSchema {
    /// Every table's `CREATE TABLE` statement, as SQLite keeps it in `sqlite_master`.
    static let tables: [(name: String, sql: String)] = [
        (
            "message",
            """
            CREATE TABLE message (id INTEGER PRIMARY KEY, messageId TEXT NOT NULL, session TEXT NOT NULL, \
            seq INTEGER NOT NULL, time REAL NOT NULL, task TEXT, path TEXT, event TEXT, result TEXT NOT NULL, \
            bytes INTEGER NOT NULL, appendedAt REAL NOT NULL, checksum INTEGER NOT NULL)
            """
        ),
        (
            "deadLetter",
            """
            CREATE TABLE deadLetter (id INTEGER PRIMARY KEY, messageId TEXT NOT NULL, session TEXT NOT NULL, \
            seq INTEGER NOT NULL, time REAL NOT NULL, task TEXT, path TEXT, event TEXT, result TEXT NOT NULL, \
            status INTEGER NOT NULL, responseBody TEXT NOT NULL, reason TEXT NOT NULL, deadAt REAL NOT NULL)
            """
        ),
        ("session", "CREATE TABLE session (name TEXT PRIMARY KEY, nextSeq INTEGER NOT NULL) WITHOUT ROWID"),
        ("dropCount", "CREATE TABLE dropCount (reason TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID"),
        ("state", "CREATE TABLE state (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID"),
    ]

    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            for table in tables { try db.execute(sql: table.sql) }
        }
        return migrator
    }

    /// Throws ``OutboxDamage`` unless every table is defined exactly as the migration made it:
    /// a damaged schema can pass `quick_check` (a changed type, say, turns `id` from the
    /// row ID into an ordinary, empty column).
    static func verify(_ db: Database) throws {
        for table in tables {
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table.name])
            guard sql == table.sql else {
                throw OutboxDamage(detail: "the table \(table.name) is not defined as it should be: \(sql ?? "missing")")
            }
        }
    }
}
