import CoreJS
import Foundation
import GRDB

/// The outbox file: synchronous operations over one GRDB `DatabaseQueue` (WAL), which
/// serializes them. The counters of waiting rows and bytes live in memory, changed only
/// inside the queue's write transactions, so the caps cost no scan.
final class OutboxStore: Sendable {
    /// A result appended but not yet written.
    struct Entry: Sendable {
        var message: OutboxMessage
        var bytes: Int
        var appendedAt: Double
    }

    /// A stored message with its row ID and stored checksum (unverified).
    struct Stored: Sendable {
        var id: Int64
        var message: OutboxMessage?
        var bytes: Int
        /// Why the row cannot be sent, when it cannot.
        var defect: String?
    }

    private struct Counters: Sendable {
        var rows = 0
        var bytes = 0
    }

    let path: String
    let configuration: OutboxConfiguration
    let database: DatabaseQueue
    private let counters = Locked(Counters())

    /// Opens (creating) the file at `path`; a damaged file throws ``OutboxDamage``. With
    /// ``OutboxConfiguration/readOnly`` nothing is created or written: the file must be an
    /// outbox already.
    init(path: String, configuration: OutboxConfiguration) throws {
        self.path = path
        self.configuration = configuration
        let readOnly = configuration.readOnly
        database = try Self.openQueue(path: path, configuration: configuration, readonly: readOnly)
        if !readOnly { try OutboxSchema.migrator().migrate(database) }
        if configuration.verifiesOnOpen || readOnly {
            let verdict = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(5)") }
            guard verdict == ["ok"] else { throw OutboxDamage(detail: verdict.joined(separator: "; ")) }
            try database.read(OutboxSchema.verify)
        }
        let (rows, bytes) =
            readOnly
            ? try database.read { db in try Self.totals(db) }
            : try database.write { db in
                try Self.setInFlight(0, in: db)
                return try Self.totals(db)
            }
        counters.withLock {
            $0.rows = rows
            $0.bytes = bytes
        }
    }

    static func openQueue(path: String, configuration: OutboxConfiguration, readonly: Bool = false) throws -> DatabaseQueue {
        var config = Configuration()
        config.label = "anna.outbox"
        config.readonly = readonly
        config.busyMode = .timeout(10)
        if !readonly { config.journalMode = .wal }
        let synchronous = configuration.durability == .powerLoss ? "FULL" : "NORMAL"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA cell_size_check = ON")
            if !readonly { try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
        }
        return try DatabaseQueue(path: path, configuration: config)
    }

    var pendingRows: Int { counters.withLock { $0.rows } }

    /// The most a row's `bytes` is taken to be: a damaged file may hold any number there,
    /// and the counters must not overflow.
    static let maximumRowBytes = 1 << 26
    /// `bytes` clamped in SQL as ``saneBytes(_:)`` clamps it in Swift.
    static let saneBytesSQL = "min(max(bytes, 0), \(maximumRowBytes))"

    /// A row's `bytes`, clamped to 0...``maximumRowBytes`` (0 when not an integer).
    static func saneBytes(_ value: DatabaseValue) -> Int {
        min(max(Int.fromDatabaseValue(value) ?? 0, 0), maximumRowBytes)
    }

    /// How many rows `message` holds (those `filter`, an SQL condition, selects) and their
    /// bytes, each row's clamped as ``saneBytes(_:)`` does.
    static func totals(_ db: Database, filter: String = "1") throws -> (rows: Int, bytes: Int) {
        let totals = try Row.fetchOne(
            db, sql: "SELECT count(*) AS rows, total(\(saneBytesSQL)) AS bytes FROM message WHERE \(filter)")
        let rows = totals.flatMap { Int.fromDatabaseValue($0.storedValue(Column("rows"))) } ?? 0
        let bytes = totals.flatMap { Double.fromDatabaseValue($0.storedValue(Column("bytes"))) } ?? 0
        return (rows, clampedInt(bytes))
    }

    /// `value` as an Int, clamped to what a sum of sane byte counts can be.
    static func clampedInt(_ value: Double) -> Int {
        value.isFinite ? Int(min(max(value, 0), Double(Int32.max) * Double(maximumRowBytes))) : 0
    }

    // MARK: - Writing

    /// What one write did besides adding its rows.
    struct Written: Sendable {
        /// The drops the caps made.
        var capDrops: [DropReason: Int] = [:]
        /// Sessions whose position 0 this write added while the `session` table already held
        /// them: an earlier opening numbered them, and this one repeats their message IDs.
        /// Each with the number recorded before (positions 0 up to it were taken).
        var reusedSessions: [(session: String, recorded: Int64)] = []
    }

    /// Writes `entries` and `drops` in one transaction, then applies the caps. A session's
    /// position 0 is the first result of it an opening appends, so only there is the
    /// `session` table looked at (once per session per opening, off the append path).
    @discardableResult
    func write(_ entries: [Entry], drops: [DropReason: Int], now: Double) throws -> Written {
        try database.write { db in
            try Entry.insert(entries, in: db)
            var lastSeq: [String: Int64] = [:]
            var addedBytes = 0
            var written = Written()
            for entry in entries {
                let message = entry.message
                if message.seq == 0, let recorded = try Self.recordedSeq(db, session: message.session), recorded > 0 {
                    written.reusedSessions.append((message.session, recorded))
                }
                lastSeq[message.session] = max(lastSeq[message.session] ?? 0, message.seq + 1)
                addedBytes += entry.bytes
            }
            for (name, next) in lastSeq { try Self.recordSession(name, nextSeq: next, in: db) }
            counters.withLock {
                $0.rows += entries.count
                $0.bytes += addedBytes
            }
            var capDrops = try applyCaps(db, now: now)
            for (reason, count) in drops { capDrops[reason, default: 0] += count }
            try Self.count(capDrops, in: db)
            written.capDrops = capDrops.filter { drops[$0.key] == nil }
            return written
        }
    }

    /// Records that `session` has positions up to `nextSeq` (exclusive) stored, unless the
    /// `session` table already holds a higher number.
    static func recordSession(_ session: String, nextSeq: Int64, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO session(name, nextSeq) VALUES (?, ?)
                ON CONFLICT(name) DO UPDATE SET nextSeq = max(nextSeq, excluded.nextSeq)
                """
        ).execute(arguments: [session, nextSeq])
    }

    /// The number the `session` table holds for `session` (one past the highest position
    /// stored), or nil when it holds none or not an integer.
    private static func recordedSeq(_ db: Database, session: String) throws -> Int64? {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT nextSeq FROM session WHERE name = ?"), arguments: [session])
        return row.flatMap { Int64.fromDatabaseValue($0[0]) }
    }

    /// Adds `drops` to the persisted counts.
    static func count(_ drops: [DropReason: Int], in db: Database) throws {
        for (reason, count) in drops where count > 0 {
            try db.execute(
                sql: """
                    INSERT INTO dropCount(reason, count) VALUES (?, ?)
                    ON CONFLICT(reason) DO UPDATE SET count = count + excluded.count
                    """, arguments: [reason.rawValue, count])
        }
    }

    /// The next row of `SELECT reason, count FROM dropCount`, each nil when not of its type.
    static func nextDropCount(_ cursor: RowCursor) throws -> (reason: String?, count: Int?)? {
        guard let row = try cursor.next() else { return nil }
        return (
            String.fromDatabaseValue(row.storedValue(Column("reason"))), Int.fromDatabaseValue(row.storedValue(Column("count")))
        )
    }

    /// Drops the oldest rows over the row, byte and age caps; returns the counts by reason.
    /// (Dead letters are never dropped for room: ``deadLetter(_:status:body:reason:now:)``
    /// refuses what does not fit.)
    private func applyCaps(_ db: Database, now: Double) throws -> [DropReason: Int] {
        var drops: [DropReason: Int] = [:]
        let rows = counters.withLock { $0.rows }
        if rows > configuration.maximumRows {
            drops[.rowCap] = try dropOldest(db) { removed, _, _ in removed < rows - configuration.maximumRows }
        }
        let bytesNow = counters.withLock { $0.bytes }
        if bytesNow > configuration.maximumBytes {
            let excess = bytesNow - configuration.maximumBytes
            drops[.byteCap] = try dropOldest(db) { _, removedBytes, _ in removedBytes < excess }
        }
        let cutoff = now - configuration.maximumAge.inSeconds
        if let oldest = try Double.fetchOne(db, sql: "SELECT appendedAt FROM message ORDER BY id LIMIT 1"), oldest < cutoff {
            drops[.age] = try dropOldest(db) { _, _, appendedAt in appendedAt < cutoff }
        }
        return drops.filter { $0.value > 0 }
    }

    /// Deletes rows from the oldest while `more(removedRows, removedBytes, appendedAt)` holds.
    private func dropOldest(_ db: Database, while more: (Int, Int, Double) -> Bool) throws -> Int {
        var removed = 0
        var removedBytes = 0
        var lastID: Int64?
        let cursor = try Row.fetchCursor(db, sql: "SELECT id, bytes, appendedAt FROM message ORDER BY id")
        while let row = try cursor.next() {
            let appendedAt = Double.fromDatabaseValue(row.storedValue(MessageRecord.appendedAt)) ?? 0
            guard more(removed, removedBytes, appendedAt) else { break }
            lastID = Int64.fromDatabaseValue(row.storedValue(Column("id")))
            removed += 1
            removedBytes += Self.saneBytes(row.storedValue(MessageRecord.bytes))
        }
        guard let lastID else { return 0 }
        try db.execute(sql: "DELETE FROM message WHERE id <= ?", arguments: [lastID])
        counters.withLock {
            $0.rows -= removed
            $0.bytes -= removedBytes
        }
        return removed
    }

    /// Counts `drops` that happened outside a write (results never stored).
    func count(_ drops: [DropReason: Int]) throws {
        try database.write { db in try Self.count(drops, in: db) }
    }

    // MARK: - Reading for delivery

    /// The oldest waiting rows, at most `count` of them and `bytes` bytes (at least one),
    /// each decoded and checked.
    func oldest(count: Int, bytes: Int) throws -> [Stored] {
        try database.read { db in
            var stored: [Stored] = []
            var total = 0
            let cursor = try Stored.fetchCursor(
                db, sql: "SELECT \(MessageRecord.selection) FROM message ORDER BY id LIMIT ?", arguments: [count])
            while let item = try cursor.next() {
                if !stored.isEmpty, total + item.bytes > bytes { break }
                total += item.bytes
                stored.append(item)
            }
            return stored
        }
    }

    /// Deletes delivered rows in one transaction.
    func delete(ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try database.write { db in try deleteRows(db, ids: ids) }
    }

    private func deleteRows(_ db: Database, ids: [Int64]) throws {
        let list = ids.map(String.init).joined(separator: ",")
        let (rows, bytes) = try Self.totals(db, filter: "rowid IN (\(list))")
        try db.execute(sql: "DELETE FROM message WHERE rowid IN (\(list))")
        counters.withLock {
            $0.rows -= rows
            $0.bytes -= bytes
        }
    }

    /// Moves rows to the dead-letter table with the server's `status` and `body` (status 0:
    /// set aside by the outbox itself), in one transaction. Over
    /// ``OutboxConfiguration/maximumDeadLetters`` the oldest dead letters stay and the rows
    /// that do not fit are dropped, counted under `deadLetterCap`; returns how many.
    func deadLetter(_ items: [Stored], status: Int, body: String, reason: String, now: Double) throws -> Int {
        guard !items.isEmpty else { return 0 }
        return try database.write { db in
            let present = try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter") ?? 0
            let room = max(0, configuration.maximumDeadLetters - present)
            for item in items.prefix(room) {
                try DeadLetterRecord(item.message, status: status, responseBody: body, reason: reason, deadAt: now).insert(db)
            }
            try deleteRows(db, ids: items.map(\.id))
            let dropped = items.count - min(room, items.count)
            var drops = try applyCaps(db, now: now)
            if dropped > 0 { drops[.deadLetterCap, default: 0] += dropped }
            try Self.count(drops, in: db)
            return dropped
        }
    }

    /// Records how many rows the request under way carries.
    func setInFlight(_ count: Int) throws {
        try database.write { db in try Self.setInFlight(count, in: db) }
    }

    private static func setInFlight(_ count: Int, in db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO state(key, value) VALUES ('inFlight', ?)", arguments: [count])
    }

    // MARK: - Stats and dead letters

    /// The counts, read from the file.
    func stats(now: Double) throws -> OutboxStats {
        try database.read { db in
            let totals = try Row.fetchOne(db, sql: "SELECT count(*) AS rows, min(appendedAt) AS oldest FROM message")
            let rows = totals.flatMap { Int.fromDatabaseValue($0.storedValue(Column("rows"))) } ?? 0
            let oldest = totals.flatMap { Double.fromDatabaseValue($0.storedValue(Column("oldest"))) }
            let inFlight = min(rows, try Int.fetchOne(db, sql: "SELECT value FROM state WHERE key = 'inFlight'") ?? 0)
            let deadLetters = try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter") ?? 0
            var dropped: [String: Int] = [:]
            let cursor = try Row.fetchCursor(db, sql: "SELECT reason, count FROM dropCount")
            while let (reason, count) = try Self.nextDropCount(cursor) {
                if let reason, let count { dropped[reason] = count }
            }
            return OutboxStats(
                pending: rows - inFlight, inFlight: inFlight, deadLetter: deadLetters, dropped: dropped,
                oldestAgeSeconds: oldest.map { max(0, now - $0) } ?? 0)
        }
    }

    /// The dead letters, oldest first.
    func deadLetters() throws -> [DeadLetter] {
        try database.read { db in
            try DeadLetterRecord.fetchAll(db, sql: "SELECT * FROM deadLetter ORDER BY id").map(\.deadLetter)
        }
    }

    /// Moves every dead letter that can be sent back to the end of the queue, with its
    /// message ID, session and sequence number unchanged; returns how many.
    /// Deletes every waiting result, every dead letter and the drop counts, then compacts the
    /// file and truncates the write-ahead log, so the deleted bytes leave the disk too.
    /// - Returns: How many results and dead letters were deleted.
    func deleteAll() throws -> Int {
        let deleted = try database.write { db in
            let count =
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM message") ?? 0)
                + (try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter") ?? 0)
            try db.execute(sql: "DELETE FROM message; DELETE FROM deadLetter; DELETE FROM dropCount")
            counters.withLock { $0 = Counters() }
            return count
        }
        try database.vacuum()
        _ = try database.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        return deleted
    }

    func requeueDeadLetters(now: Double) throws -> (requeued: Int, kept: Int) {
        try database.write { db in
            var requeued = 0
            var kept = try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter WHERE status = 0") ?? 0
            for record in try DeadLetterRecord.fetchAll(db, sql: "SELECT * FROM deadLetter WHERE status != 0 ORDER BY id") {
                guard let id = record.id, let message = record.requeueable else {
                    kept += 1
                    continue
                }
                let entry = Entry(message: message, bytes: WireFormat.estimatedBytes(of: message), appendedAt: now)
                try Entry.insert(CollectionOfOne(entry), in: db)
                try db.execute(sql: "DELETE FROM deadLetter WHERE id = ?", arguments: [id])
                counters.withLock {
                    $0.rows += 1
                    $0.bytes += entry.bytes
                }
                requeued += 1
            }
            return (requeued, kept)
        }
    }
}

/// The file is damaged (what `PRAGMA quick_check` or SQLite said).
struct OutboxDamage: Error {
    var detail: String
}

extension OutboxStore {
    /// Records a damaged row of a salvaged file as a dead letter (status 0) without a row to delete.
    func deadLetterUnreadable(_ item: Stored, now: Double) throws {
        try database.write { db in
            try DeadLetterRecord(
                item.message, status: 0, responseBody: "", reason: "unreadable: \(item.defect ?? "damaged")", deadAt: now
            ).insert(db)
        }
    }
}
