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
        let count = { (db: Database) throws -> (Int, Int) in
            let totals = try Row.fetchOne(db, sql: "SELECT count(*), total(\(Self.saneBytesSQL)) FROM message")
            let rows = totals.flatMap { Int.fromDatabaseValue($0[0]) } ?? 0
            let bytes = totals.flatMap { Double.fromDatabaseValue($0[1]) } ?? 0
            return (rows, Self.clampedInt(bytes))
        }
        let (rows, bytes) =
            readOnly
            ? try database.read(count)
            : try database.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO state(key, value) VALUES ('inFlight', 0)")
                return try count(db)
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
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO message(messageId, session, seq, time, task, path, event, result, bytes, appendedAt, checksum)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            var lastSeq: [String: Int64] = [:]
            var addedBytes = 0
            var written = Written()
            for entry in entries {
                let message = entry.message
                if message.seq == 0, let recorded = try Self.recordedSeq(db, session: message.session), recorded > 0 {
                    written.reusedSessions.append((message.session, recorded))
                }
                insert.setUncheckedArguments([
                    message.messageId, message.session, message.seq, message.time, message.task, message.path,
                    message.event, message.result, entry.bytes, entry.appendedAt, message.checksum,
                ])
                try insert.execute()
                lastSeq[message.session] = max(lastSeq[message.session] ?? 0, message.seq + 1)
                addedBytes += entry.bytes
            }
            let session = try db.cachedStatement(
                sql: """
                    INSERT INTO session(name, nextSeq) VALUES (?, ?)
                    ON CONFLICT(name) DO UPDATE SET nextSeq = max(nextSeq, excluded.nextSeq)
                    """)
            for (name, next) in lastSeq { try session.execute(arguments: [name, next]) }
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
        let cutoff = now - configuration.maximumAgeSeconds
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
            let appendedAt = Double.fromDatabaseValue(row[2]) ?? 0
            guard more(removed, removedBytes, appendedAt) else { break }
            lastID = Int64.fromDatabaseValue(row[0])
            removed += 1
            removedBytes += Self.saneBytes(row[1])
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
            let cursor = try Row.fetchCursor(
                db, sql: "SELECT \(OutboxSchema.messageColumns), bytes FROM message ORDER BY id LIMIT ?", arguments: [count])
            while let row = try cursor.next() {
                let item = Self.decode(row)
                if !stored.isEmpty, total + item.bytes > bytes { break }
                total += item.bytes
                stored.append(item)
            }
            return stored
        }
    }

    /// A row of ``OutboxSchema/messageColumns`` (plus `bytes`), checked against its checksum
    /// and its result parsed, never trusted: a damaged row comes back with a defect.
    static func decode(_ row: Row) -> Stored {
        let id = Int64.fromDatabaseValue(row[0]) ?? -1
        let bytes = saneBytes(row[10])
        func text(_ index: Int) -> String? { String.fromDatabaseValue(row[index]) }
        guard let messageId = text(1), let session = text(2), let seq = Int64.fromDatabaseValue(row[3]),
            let time = Double.fromDatabaseValue(row[4]), time.isFinite, let result = text(8),
            let checksum = Int64.fromDatabaseValue(row[9])
        else { return Stored(id: id, message: nil, bytes: bytes, defect: "a column is missing or of the wrong type") }
        for index in 5...7 where !(row[index] as DatabaseValue).isNull && text(index) == nil {
            return Stored(id: id, message: nil, bytes: bytes, defect: "a column is of the wrong type")
        }
        let message = OutboxMessage(
            messageId: messageId, session: session, seq: seq, time: time, task: text(5), path: text(6), event: text(7),
            result: result)
        guard message.checksum == checksum else {
            return Stored(id: id, message: message, bytes: bytes, defect: "the checksum does not match")
        }
        do {
            _ = try JSONValue(parsing: result)
        } catch {
            return Stored(id: id, message: message, bytes: bytes, defect: "the result is not JSON: \(error)")
        }
        return Stored(id: id, message: message, bytes: bytes, defect: nil)
    }

    /// Deletes delivered rows in one transaction.
    func delete(ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try database.write { db in try deleteRows(db, ids: ids) }
    }

    private func deleteRows(_ db: Database, ids: [Int64]) throws {
        let list = ids.map(String.init).joined(separator: ",")
        let totals = try Row.fetchOne(
            db, sql: "SELECT count(*), total(\(Self.saneBytesSQL)) FROM message WHERE rowid IN (\(list))")
        try db.execute(sql: "DELETE FROM message WHERE rowid IN (\(list))")
        let rows = totals.flatMap { Int.fromDatabaseValue($0[0]) } ?? 0
        let bytes = Self.clampedInt(totals.flatMap { Double.fromDatabaseValue($0[1]) } ?? 0)
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
                let message = item.message
                try db.execute(
                    sql: """
                        INSERT INTO deadLetter(messageId, session, seq, time, task, path, event, result, status, responseBody, reason, deadAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        message?.messageId ?? "", message?.session ?? "", message?.seq ?? -1, message?.time ?? 0,
                        message?.task, message?.path, message?.event, message?.result ?? "", status, body, reason, now,
                    ])
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
        try database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO state(key, value) VALUES ('inFlight', ?)", arguments: [count])
        }
    }

    // MARK: - Stats and dead letters

    /// The counts, read from the file.
    func stats(now: Double) throws -> OutboxStats {
        try database.read { db in
            let totals = try Row.fetchOne(db, sql: "SELECT count(*), min(appendedAt) FROM message")
            let rows = totals.flatMap { Int.fromDatabaseValue($0[0]) } ?? 0
            let oldest = totals.flatMap { Double.fromDatabaseValue($0[1]) }
            let inFlight = min(rows, try Int.fetchOne(db, sql: "SELECT value FROM state WHERE key = 'inFlight'") ?? 0)
            let deadLetters = try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter") ?? 0
            var dropped: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT reason, count FROM dropCount") {
                if let reason = String.fromDatabaseValue(row[0]), let count = Int.fromDatabaseValue(row[1]) {
                    dropped[reason] = count
                }
            }
            return OutboxStats(
                pending: rows - inFlight, inFlight: inFlight, deadLetter: deadLetters, dropped: dropped,
                oldestAgeSeconds: oldest.map { max(0, now - $0) } ?? 0)
        }
    }

    /// The dead letters, oldest first.
    func deadLetters() throws -> [DeadLetter] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, messageId, session, seq, time, task, path, event, result, status, responseBody, reason, deadAt
                    FROM deadLetter ORDER BY id
                    """
            ).map { row in
                DeadLetter(
                    messageId: String.fromDatabaseValue(row[1]) ?? "", session: String.fromDatabaseValue(row[2]) ?? "",
                    seq: Int64.fromDatabaseValue(row[3]) ?? -1, task: String.fromDatabaseValue(row[5]),
                    path: String.fromDatabaseValue(row[6]), event: String.fromDatabaseValue(row[7]),
                    result: String.fromDatabaseValue(row[8]) ?? "", status: Int.fromDatabaseValue(row[9]) ?? 0,
                    responseBody: String.fromDatabaseValue(row[10]) ?? "", reason: String.fromDatabaseValue(row[11]) ?? "",
                    deadAt: Double.fromDatabaseValue(row[12]) ?? 0)
            }
        }
    }

    /// Moves every dead letter that can be sent back to the end of the queue, with its
    /// message ID, session and sequence number unchanged; returns how many.
    func requeueDeadLetters(now: Double) throws -> (requeued: Int, kept: Int) {
        try database.write { db in
            var requeued = 0
            var kept = 0
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT id, messageId, session, seq, time, task, path, event, result FROM deadLetter WHERE status != 0 ORDER BY id")
            kept = try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter WHERE status = 0") ?? 0
            for row in rows {
                guard let id = Int64.fromDatabaseValue(row[0]), let messageId = String.fromDatabaseValue(row[1]),
                    !messageId.isEmpty, let session = String.fromDatabaseValue(row[2]),
                    let seq = Int64.fromDatabaseValue(row[3]), let time = Double.fromDatabaseValue(row[4]),
                    let result = String.fromDatabaseValue(row[8]), (try? JSONValue(parsing: result)) != nil
                else {
                    kept += 1
                    continue
                }
                let message = OutboxMessage(
                    messageId: messageId, session: session, seq: seq, time: time, task: String.fromDatabaseValue(row[5]),
                    path: String.fromDatabaseValue(row[6]), event: String.fromDatabaseValue(row[7]), result: result)
                let bytes = WireFormat.estimatedBytes(of: message)
                try db.execute(
                    sql: """
                        INSERT INTO message(messageId, session, seq, time, task, path, event, result, bytes, appendedAt, checksum)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        messageId, session, seq, time, message.task, message.path, message.event, result, bytes, now,
                        message.checksum,
                    ])
                try db.execute(sql: "DELETE FROM deadLetter WHERE id = ?", arguments: [id])
                counters.withLock {
                    $0.rows += 1
                    $0.bytes += bytes
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
            let message = item.message
            try db.execute(
                sql: """
                    INSERT INTO deadLetter(messageId, session, seq, time, task, path, event, result, status, responseBody, reason, deadAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, '', ?, ?)
                    """,
                arguments: [
                    message?.messageId ?? "", message?.session ?? "", message?.seq ?? -1, message?.time ?? 0, message?.task,
                    message?.path, message?.event, message?.result ?? "",
                    "unreadable: \(item.defect ?? "damaged")", now,
                ])
        }
    }
}
