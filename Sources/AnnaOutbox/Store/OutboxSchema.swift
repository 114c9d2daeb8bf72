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
/// - `state`: `inFlight`, the rows of the request under way (0 when none); `inFlight:<name>`
///   for a named destination's.
/// - `envelope`: the identity and context results were stamped with (``Envelope``), shared
///   by the rows whose `envelope` column names it (few: one per user, session or context).
/// - `identity`: the install's `anonymousId`, the `userId`, the analytics session.
/// - `messageGroup`: results appended together, many per row (``MessageGroup``), with which
///   of them are done with (``GroupDoneState``); each destination's queue is its `message`
///   rows (files of earlier versions, requeued dead letters), then its groups.
///
/// A row of `message` or `deadLetter` belongs to one destination (`destination`, `''` for
/// the default one): a result sent to two destinations is two rows, each destination's queue
/// its own. `messageDestination` finds a destination's oldest rows without scanning another's.
///
/// The keyed tables are `WITHOUT ROWID`, so they need no separate index. `quick_check` does
/// not compare an index with its table, so opening rebuilds `messageDestination` from the
/// table (`REINDEX`) after the check: a damaged index cannot hide rows from delivery.
enum OutboxSchema {
    /// Every table's `CREATE TABLE` statement, as SQLite keeps it in `sqlite_master`.
    static let tables: [(name: String, sql: String)] = [
        (
            "message",
            """
            CREATE TABLE message (id INTEGER PRIMARY KEY, messageId TEXT NOT NULL, session TEXT NOT NULL, \
            seq INTEGER NOT NULL, time REAL NOT NULL, task TEXT, path TEXT, event TEXT, result TEXT NOT NULL, \
            bytes INTEGER NOT NULL, appendedAt REAL NOT NULL, checksum INTEGER NOT NULL, \
            destination TEXT NOT NULL DEFAULT '', envelope INTEGER)
            """
        ),
        (
            "deadLetter",
            """
            CREATE TABLE deadLetter (id INTEGER PRIMARY KEY, messageId TEXT NOT NULL, session TEXT NOT NULL, \
            seq INTEGER NOT NULL, time REAL NOT NULL, task TEXT, path TEXT, event TEXT, result TEXT NOT NULL, \
            status INTEGER NOT NULL, responseBody TEXT NOT NULL, reason TEXT NOT NULL, deadAt REAL NOT NULL, \
            destination TEXT NOT NULL DEFAULT '', envelope INTEGER)
            """
        ),
        ("session", "CREATE TABLE session (name TEXT PRIMARY KEY, nextSeq INTEGER NOT NULL) WITHOUT ROWID"),
        ("dropCount", "CREATE TABLE dropCount (reason TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID"),
        ("state", "CREATE TABLE state (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID"),
        ("envelope", "CREATE TABLE envelope (id INTEGER PRIMARY KEY, json TEXT NOT NULL)"),
        ("identity", "CREATE TABLE identity (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID"),
        (
            "messageGroup",
            """
            CREATE TABLE messageGroup (id INTEGER PRIMARY KEY, destination TEXT NOT NULL, envelope INTEGER, \
            session TEXT NOT NULL, count INTEGER NOT NULL, bytes INTEGER NOT NULL, appendedAt REAL NOT NULL, \
            messages BLOB NOT NULL, checksum INTEGER NOT NULL, done BLOB, doneCount INTEGER NOT NULL DEFAULT 0, \
            doneBytes INTEGER NOT NULL DEFAULT 0)
            """
        ),
    ]

    /// The index of each destination's rows, in append order.
    static let destinationIndex = (
        name: "messageDestination", sql: "CREATE INDEX messageDestination ON message(destination, id)"
    )

    /// The tables the first version made, as it made them (files written before destinations
    /// existed are migrated from these).
    private static let firstTables = tables.prefix(5).map { table in
        (table.name, table.sql.replacingOccurrences(of: ", destination TEXT NOT NULL DEFAULT '', envelope INTEGER)", with: ")"))
    }

    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            for table in firstTables { try db.execute(sql: table.1) }
        }
        // Destinations and identity: SQLite appends the added columns to the stored
        // `CREATE TABLE`, so a migrated file's schema reads as a new file's.
        migrator.registerMigration("v2") { db in
            for table in ["message", "deadLetter"] {
                try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN destination TEXT NOT NULL DEFAULT ''")
                try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN envelope INTEGER")
            }
            for table in tables[5..<7] { try db.execute(sql: table.sql) }
            try db.execute(sql: destinationIndex.sql)
        }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: tables[7].sql)
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
        let index = try String.fetchOne(
            db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [destinationIndex.name])
        guard index == destinationIndex.sql else {
            throw OutboxDamage(detail: "the index \(destinationIndex.name) is not defined as it should be: \(index ?? "missing")")
        }
    }
}
