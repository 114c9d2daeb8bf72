import Foundation
import GRDB

/// Results appended together, kept in one row of the `messageGroup` table: a row per result
/// cost the writer about 2 µs of CPU each (the bindings, SQLite's insert and index), a group
/// one insert for up to ``maximumCount`` results.
///
/// A group holds consecutive entries of one destination, session and envelope. Each entry
/// carries its own length, index and hash (``BlobWriter``), so a damaged entry costs only
/// itself (it becomes a dead letter), and a damaged length only the entries it hides (the
/// reader finds the next whole entry; those in between are counted `corrupt`). The row's
/// `checksum` covers its other columns; `done` says which entries are done with
/// (``GroupDoneState``).
///
/// Delivery reads a destination's `message` rows, then its groups' entries not done with, in
/// row and index order: append order. An entry is referred to by a negative
/// ``OutboxStore/Stored/id`` (``reference(group:index:)``); delivering it marks it done, and
/// the row goes once all of its entries are. A damaged group is repaired first
/// (``repair(_:_:pending:maximumDeadLetters:now:)``).
enum MessageGroup {
    /// The table.
    static let table = "messageGroup"
    /// The most entries in one group (an entry's index fits in 11 bits of a reference).
    static let maximumCount = 1024
    /// A group being appended to is closed once it holds this many entries. Delivery reads a
    /// group's whole row for each batch it takes from it, and marking entries done writes the
    /// row again when its size changes, so a group of a few batches costs delivery less than
    /// one of ``maximumCount`` (which files written with 1,024 a group may hold).
    static let appendedCount = 256
    /// A group is closed once its entries take this many bytes (a single larger entry still
    /// makes a group of its own).
    static let maximumBlobBytes = 1 << 20
    /// The columns besides `id`, in the order of the `INSERT`.
    static let insertSQL =
        "INSERT INTO messageGroup(destination, envelope, session, count, bytes, appendedAt, messages, checksum) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"

    /// What a row's checksum covers: the columns that say whose entries these are.
    static func headerChecksum(destination: String, envelope: Int64?, session: String, count: Int) -> Int64 {
        var bytes: [UInt8] = []
        bytes.append(contentsOf: destination.utf8)
        bytes.append(0)
        bytes.append(contentsOf: session.utf8)
        bytes.append(0)
        BlobWriter.append(envelope ?? -1, to: &bytes)
        BlobWriter.append(Int64(count), to: &bytes)
        return Int64(bitPattern: bytes.withUnsafeBytes { FastHash.hash($0) })
    }

    // MARK: - Writing

    /// Inserts `groups`, in order; `envelope` gives the row of each group's envelope.
    static func insert(
        _ groups: [PendingGroup], in db: Database, envelope: (StampedEnvelope) throws -> Int64
    ) throws {
        let statement = try db.cachedStatement(sql: insertSQL)
        for group in groups where group.count > 0 {
            let envelopeID = try group.envelope.map(envelope)
            let checksum = headerChecksum(
                destination: group.destination, envelope: envelopeID, session: group.session, count: group.count)
            try group.blob.withUnsafeBytes { bytes in
                // SQLite copies a bound blob: the bytes are lent, not copied twice.
                let blob = bytes.baseAddress.map {
                    Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0), count: bytes.count, deallocator: .none)
                }
                statement.setUncheckedArguments([
                    group.destination, envelopeID, group.session, group.count, group.bytes, group.appendedAt, blob ?? Data(),
                    checksum,
                ])
                try statement.execute()
            }
        }
    }

    // MARK: - Reading

    /// One entry read back from a group.
    struct Decoded {
        /// Its place in the group (nil when its hash does not match: the index is not trusted).
        var index: Int?
        var message: OutboxMessage?
        var bytes: Int
        var appendedAt: Double
        /// Why the entry cannot be sent, when it cannot.
        var defect: String?
    }

    /// A group row read back: its columns and its entries.
    struct Row {
        var id: Int64
        var destination: String
        var envelope: Int64?
        var session: String
        var count: Int
        /// The entries decoded (those not done with, unless every one was asked for).
        var entries: [Decoded] = []
        /// Entries the row says it holds that could not be read at all (by its count, even
        /// when its own columns are damaged: a loss is rather over-reported than missed).
        var lost = 0
        var done: GroupDoneState
        /// Why its own columns cannot be trusted, when they cannot.
        var header: String?

        /// Whether anything in it is damaged: it is repaired before any of it is sent.
        var isDamaged: Bool { header != nil || lost > 0 || entries.contains { $0.defect != nil } }

        /// The decoded entries not done with, in order.
        var waiting: [Decoded] { entries.filter { entry in entry.index.map { !done.contains($0) } ?? true } }
    }

    /// Decodes the group row `row` (any column may be damaged): every entry, or with
    /// `skippingDone` only those not done with (the others are passed over undecoded).
    static func decode(_ row: GRDB.Row, skippingDone: Bool = true) -> Row {
        let id = Int64.fromDatabaseValue(row.storedValue(Column("id"))) ?? -1
        let destination = String.fromDatabaseValue(row.storedValue(Column("destination"))) ?? ""
        let envelope = Int64.fromDatabaseValue(row.storedValue(Column("envelope")))
        let session = String.fromDatabaseValue(row.storedValue(Column("session")))
        let count = min(max(Int.fromDatabaseValue(row.storedValue(Column("count"))) ?? 0, 0), maximumCount)
        let checksum = Int64.fromDatabaseValue(row.storedValue(Column("checksum")))
        let blob = Data.fromDatabaseValue(row.storedValue(Column("messages"))) ?? Data()
        var group = Row(
            id: id, destination: destination, envelope: envelope, session: session ?? "", count: count,
            done: GroupDoneState(stored: row.storedValue(Column("done")), entries: count))
        if session == nil || checksum == nil {
            group.header = "a column of its group is missing or of the wrong type"
        } else if headerChecksum(destination: destination, envelope: envelope, session: session ?? "", count: count) != checksum {
            group.header = "its group's checksum does not match"
        }
        var seen = 0
        blob.withUnsafeBytes { buffer in
            var reader = BlobReader(buffer: buffer)
            let done = group.done
            while let next = reader.next(session: group.session, decoding: { !skippingDone || !done.contains($0) }) {
                seen += 1
                guard case var .entry(decoded) = next else { continue }
                if decoded.defect == nil, let header = group.header { decoded.defect = header }
                group.entries.append(decoded)
            }
        }
        group.lost = max(0, count - seen)
        return group
    }

    /// The group row `id`, decoded (its entries not done with), or nil when there is none.
    static func fetch(_ db: Database, id: Int64) throws -> Row? {
        try GRDB.Row.fetchOne(db, sql: "SELECT * FROM messageGroup WHERE id = ?", arguments: [id]).map { decode($0) }
    }

    /// How many entries the groups hold, not done with (those `filter` selects), and their bytes.
    static func totals(_ db: Database, filter: String = "1", arguments: StatementArguments = []) throws -> (rows: Int, bytes: Int) {
        let totals = try GRDB.Row.fetchOne(
            db,
            sql: """
                SELECT total(max(min(max(count, 0), \(maximumCount)) - max(doneCount, 0), 0)) AS rows, \
                total(max(\(OutboxStore.saneBytesSQL) - max(doneBytes, 0), 0)) AS bytes FROM messageGroup WHERE \(filter)
                """,
            arguments: arguments)
        let rows = totals.flatMap { Double.fromDatabaseValue($0.storedValue(Column("rows"))) } ?? 0
        let bytes = totals.flatMap { Double.fromDatabaseValue($0.storedValue(Column("bytes"))) } ?? 0
        return (OutboxStore.clampedInt(rows), OutboxStore.clampedInt(bytes))
    }

    /// A reference to entry `index` of group `id`, as a ``OutboxStore/Stored/id``: negative,
    /// where a row of `message` has its positive row ID.
    static func reference(group id: Int64, index: Int) -> Int64 {
        -(id * 2 * Int64(maximumCount) + Int64(index) + 1)
    }

    /// The largest group ID an opened file may hold: 2^50. References
    /// (``reference(group:index:)``) overflow past about 4.5 × 10^15, and SQLite numbers new
    /// groups from the largest ID on, so the groups written after an opening stay far below.
    static let maximumID: Int64 = 1 << 50

    /// Throws ``OutboxDamage`` unless every `message` row ID is positive and every group ID
    /// in `1...maximumID`, as SQLite gives them: references and row IDs then never share a
    /// value. Other IDs (a file changed by hand, or damaged) would make references overflow or
    /// name the wrong result; such a file is salvaged, its results given new IDs.
    static func checkIDs(_ db: Database) throws {
        let message = try GRDB.Row.fetchOne(db, sql: "SELECT min(id) AS low FROM message")
        let group = try GRDB.Row.fetchOne(db, sql: "SELECT min(id) AS low, max(id) AS high FROM \(table)")
        var wrong: [String] = []
        if let low = message.flatMap({ Int64.fromDatabaseValue($0.storedValue(Column("low"))) }), low <= 0 {
            wrong.append("message row \(low)")
        }
        if let low = group.flatMap({ Int64.fromDatabaseValue($0.storedValue(Column("low"))) }), low <= 0 {
            wrong.append("group \(low)")
        }
        if let high = group.flatMap({ Int64.fromDatabaseValue($0.storedValue(Column("high"))) }), high > maximumID {
            wrong.append("group \(high)")
        }
        guard wrong.isEmpty else {
            throw OutboxDamage(
                detail: "row IDs out of range (\(wrong.joined(separator: ", "))): a message row's must be positive, a group's 1...\(maximumID)")
        }
    }

    /// The group and index of a ``reference(group:index:)``; nil for a row ID.
    static func entry(of reference: Int64) -> (group: Int64, index: Int)? {
        guard reference < 0 else { return nil }
        let value = -reference - 1
        return (value / (2 * Int64(maximumCount)), Int(value % (2 * Int64(maximumCount))))
    }

    // MARK: - Done with

    /// Marks entries of group `id` done with (`bytes`: each one's), deleting the row once
    /// every entry is; returns how many of them were not done before, and their bytes.
    static func markDone(_ db: Database, group id: Int64, entries: [(index: Int, bytes: Int)]) throws -> (count: Int, bytes: Int) {
        guard let row = try GRDB.Row.fetchOne(db, sql: "SELECT count, done FROM messageGroup WHERE id = ?", arguments: [id]) else {
            return (0, 0)
        }
        let count = min(max(Int.fromDatabaseValue(row.storedValue(Column("count"))) ?? 0, 0), maximumCount)
        var done = GroupDoneState(stored: row.storedValue(Column("done")), entries: count)
        var marked = (count: 0, bytes: 0)
        for entry in entries where done.insert(entry.index, bytes: entry.bytes) {
            marked.count += 1
            marked.bytes += entry.bytes
        }
        if done.count >= count {
            try db.execute(sql: "DELETE FROM messageGroup WHERE id = ?", arguments: [id])
        } else if marked.count > 0 {
            try db.execute(
                sql: "UPDATE messageGroup SET done = ?, doneCount = ?, doneBytes = ? WHERE id = ?",
                arguments: [done.encoded, done.count, done.bytes, id])
        }
        return marked
    }

    // MARK: - Damage

    /// What repairing or unpacking a group did with its damaged entries.
    struct Damage {
        /// Damaged entries set aside as dead letters.
        var setAside = 0
        /// Entries that could not be read at all (counted under `corrupt`), and damaged ones
        /// that found no room among the dead letters (`deadLetterCap`).
        var lost = 0
        var overCap = 0
        /// The results and bytes that left the pending counts.
        var removed = 0
        var removedBytes = 0
    }

    /// Sets aside the damaged entries of `group` as dead letters (status 0) while there is
    /// room, counts the unreadable ones under `corrupt`, and stores its good entries not done
    /// with as a new, whole group in the same row (same place in the queue), or deletes the
    /// row when none is left. `pending` is what the row counted as waiting before.
    static func repair(
        _ db: Database, _ group: Row, pending: (count: Int, bytes: Int), maximumDeadLetters: Int, now: Double
    ) throws -> Damage {
        var damage = Damage()
        var room = max(0, maximumDeadLetters - (try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter") ?? 0))
        var rebuilt = PendingGroup(destination: group.destination, session: group.session, envelope: nil, appendedAt: now)
        var firstAppendedAt: Double?
        for entry in group.waiting {
            guard let message = entry.message else {
                damage.lost += 1
                continue
            }
            if let defect = entry.defect {
                guard room > 0 else {
                    damage.overCap += 1
                    continue
                }
                room -= 1
                var record = DeadLetterRecord(message, status: 0, responseBody: "", reason: "unreadable: \(defect)", deadAt: now)
                (record.destination, record.envelope) = (group.destination, group.envelope)
                try record.insert(db)
                damage.setAside += 1
                continue
            }
            firstAppendedAt = firstAppendedAt ?? entry.appendedAt
            rebuilt.append(
                seq: message.seq, time: message.time, task: message.task, path: message.path, event: message.event,
                result: message.result,
                givenMessageId: message.messageId == MessageID.make(session: group.session, seq: message.seq)
                    ? nil : message.messageId, bytes: entry.bytes, appendedAt: entry.appendedAt)
        }
        damage.lost += group.lost
        // Whatever left the pending count and was neither kept nor set aside is lost, and said so.
        damage.lost = max(damage.lost, pending.count - rebuilt.count - damage.setAside - damage.overCap)
        if rebuilt.count == 0 {
            try db.execute(sql: "DELETE FROM messageGroup WHERE id = ?", arguments: [group.id])
        } else {
            let checksum = headerChecksum(
                destination: group.destination, envelope: group.envelope, session: group.session, count: rebuilt.count)
            try rebuilt.blob.withUnsafeBytes { bytes in
                try db.execute(
                    sql: """
                        UPDATE messageGroup SET count = ?, bytes = ?, appendedAt = ?, messages = ?, checksum = ?, \
                        done = NULL, doneCount = 0, doneBytes = 0 WHERE id = ?
                        """,
                    arguments: [
                        rebuilt.count, rebuilt.bytes, firstAppendedAt ?? now, Data(bytes), checksum, group.id,
                    ])
            }
        }
        damage.removed = max(0, pending.count - rebuilt.count)
        damage.removedBytes = max(0, pending.bytes - rebuilt.bytes)
        try OutboxStore.count([.corrupt: damage.lost, .deadLetterCap: damage.overCap], in: db)
        return damage
    }

    /// Moves the entries not done with of the oldest group (of any destination) to `message`
    /// rows at the end of the table and deletes it, repairing it first when damaged (so a
    /// requeued dead letter can go after everything waiting). Returns nil when there is no group.
    static func unpackOldest(_ db: Database, maximumDeadLetters: Int, now: Double) throws -> Damage? {
        guard let stored = try GRDB.Row.fetchOne(db, sql: "SELECT * FROM messageGroup ORDER BY id LIMIT 1") else { return nil }
        var group = decode(stored)
        let pending = try totals(db, filter: "id = ?", arguments: [group.id])
        var damage = Damage()
        if group.isDamaged {
            damage = try repair(db, group, pending: (pending.rows, pending.bytes), maximumDeadLetters: maximumDeadLetters, now: now)
            guard let repaired = try GRDB.Row.fetchOne(db, sql: "SELECT * FROM messageGroup WHERE id = ?", arguments: [group.id])
            else { return damage }
            group = decode(repaired)
        }
        let statement = try db.cachedStatement(sql: OutboxStore.Entry.insertSQL)
        for entry in group.waiting {
            guard let message = entry.message else { continue }
            let row = OutboxStore.Entry(
                message: message, bytes: entry.bytes, appendedAt: entry.appendedAt, destination: group.destination)
            statement.setUncheckedArguments(row.arguments(envelope: group.envelope))
            try statement.execute()
        }
        try db.execute(sql: "DELETE FROM messageGroup WHERE id = ?", arguments: [group.id])
        return damage
    }
}
