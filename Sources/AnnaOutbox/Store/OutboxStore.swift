import CoreJS
import Foundation
import GRDB

/// The outbox file: synchronous operations over one GRDB `DatabaseQueue` (WAL), which
/// serializes them. The counters of waiting rows and bytes, and a bound on their age, live in
/// memory, changed only inside the queue's write transactions (``transaction(_:)``, which
/// restores them when a transaction fails), so the caps cost no scan.
final class OutboxStore: Sendable {
    /// A result on its way to a row of `message` (a requeued dead letter, a group moved to
    /// rows before one) or to a group (a salvage): a message's fields, its ID made from its
    /// session and position (``MessageID``) unless it has another.
    struct Entry: Sendable {
        var session: String
        var seq: Int64
        var time: Double
        var task: String?
        var path: String?
        var event: String?
        var result: String
        /// The message's ID when it is not ``MessageID/make(session:seq:)``'s.
        var givenMessageId: String?
        var bytes: Int
        var appendedAt: Double
        /// The destination it is queued for (`''`: the default one).
        var destination = ""
        /// The identity and context it was stamped with.
        var envelope: StampedEnvelope?

        /// `message` as it was kept (its ID too).
        init(message: OutboxMessage, bytes: Int, appendedAt: Double, destination: String = "", envelope: StampedEnvelope? = nil) {
            (session, seq, time, task, path, event, result) =
                (message.session, message.seq, message.time, message.task, message.path, message.event, message.result)
            (self.bytes, self.appendedAt, self.destination, self.envelope) = (bytes, appendedAt, destination, envelope)
            if message.messageId != MessageID.make(session: message.session, seq: message.seq) {
                givenMessageId = message.messageId
            }
        }

        /// The message, its ID made when not given.
        var message: OutboxMessage {
            OutboxMessage(
                messageId: givenMessageId ?? MessageID.make(session: session, seq: seq), session: session, seq: seq, time: time,
                task: task, path: path, event: event, result: result)
        }
    }

    /// A stored message with its row ID and stored checksum (unverified).
    struct Stored: Sendable {
        var id: Int64
        var message: OutboxMessage?
        var bytes: Int
        /// The destination it is queued for.
        var destination = ""
        /// Its row in the `envelope` table.
        var envelope: Int64?
        /// Why the row cannot be sent, when it cannot.
        var defect: String?
        /// The event in the destination's format, once the uploader made it.
        var encoded: String?
    }

    private struct Counters: Sendable {
        var rows = 0
        var bytes = 0
        /// No waiting result was appended before this time: every append lowers it, a removal
        /// leaves it, and the age cap looks for the oldest (a scan of every group's row) only
        /// once it is behind the cutoff. `-infinity`: not known (after a repair, an unpacking
        /// or a requeue, which can put back older times).
        var ageFloor = -Double.infinity
    }

    /// Damaged entries of groups met when repairing or unpacking them, not yet reported: set
    /// aside as dead letters, and lost (unreadable, or no room among the dead letters).
    private struct GroupDamage: Sendable {
        var setAside = 0
        /// Unreadable (`corrupt`), and set aside but over the dead-letter cap (`deadLetterCap`).
        var lost = 0
        var overCap = 0
    }

    let path: String
    let configuration: OutboxConfiguration
    let database: DatabaseQueue
    private let counters: Locked<Counters>
    private let groupDamage: Locked<GroupDamage>
    /// The `envelope` table's rows by JSON text (written ones only), and parsed by ID.
    private let envelopes: Locked<EnvelopeCache>

    private struct EnvelopeCache: Sendable {
        var ids: [String: Int64] = [:]
        var parsed: [Int64: Envelope] = [:]
    }

    /// Opens (creating) the file at `path`; a damaged file throws ``OutboxDamage``. With
    /// ``OutboxConfiguration/readOnly`` nothing is created or written: the file must be an
    /// outbox already.
    init(path: String, configuration: OutboxConfiguration) throws {
        // Everything that can throw comes before the locks are made (a throwing initializer
        // that has to destroy a `Mutex` it made crashes the 6.3 optimizer).
        let readOnly = configuration.readOnly
        let database = try Self.openQueue(path: path, configuration: configuration, readonly: readOnly)
        if !readOnly { try OutboxSchema.migrator().migrate(database) }
        if configuration.verifiesOnOpen || readOnly {
            let verdict = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(5)") }
            guard verdict == ["ok"] else { throw OutboxDamage(detail: verdict.joined(separator: "; ")) }
            try database.read(OutboxSchema.verify)
            if !readOnly { try database.write { db in try db.execute(sql: "REINDEX \(OutboxSchema.destinationIndex.name)") } }
        }
        try database.read(MessageGroup.checkIDs)
        let totals = try Self.openingTotals(database, readOnly: readOnly)
        self.path = path
        self.configuration = configuration
        self.database = database
        counters = Locked(Counters(rows: totals.rows, bytes: totals.bytes))
        groupDamage = Locked(GroupDamage())
        envelopes = Locked(EnvelopeCache())
    }

    /// The results waiting when the file is opened; unless `readOnly`, the marks of requests
    /// under way and the envelopes no result uses are cleared first.
    private static func openingTotals(_ database: DatabaseQueue, readOnly: Bool) throws -> (rows: Int, bytes: Int) {
        if readOnly { return try database.read { db in try allTotals(db) } }
        return try database.write { db in
            try db.execute(sql: "DELETE FROM state WHERE key LIKE 'inFlight%'")
            try pruneEnvelopes(db)
            return try allTotals(db)
        }
    }

    static func openQueue(path: String, configuration: OutboxConfiguration, readonly: Bool = false) throws -> DatabaseQueue {
        var config = Configuration()
        config.label = "anna.outbox"
        config.readonly = readonly
        config.busyMode = .timeout(10)
        if !readonly { config.journalMode = .wal }
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA cell_size_check = ON") }
        let database = try DatabaseQueue(path: path, configuration: config)
        if !readonly {
            // Set here: GRDB's WAL set-up, which runs after `prepareDatabase`, sets NORMAL.
            let synchronous = configuration.durability == .powerLoss ? "FULL" : "NORMAL"
            try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = \(synchronous)") }
        }
        return database
    }

    var pendingRows: Int { counters.withLock { $0.rows } }

    /// How many results wait for `destination` (in rows and in groups).
    func pendingCount(destination: String) throws -> Int {
        try database.read { db in
            try Self.totals(db, filter: "destination = ?", arguments: [destination]).rows
                + MessageGroup.totals(db, filter: "destination = ?", arguments: [destination]).rows
        }
    }

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
    static func totals(_ db: Database, filter: String = "1", arguments: StatementArguments = []) throws -> (rows: Int, bytes: Int) {
        let totals = try Row.fetchOne(
            db, sql: "SELECT count(*) AS rows, total(\(saneBytesSQL)) AS bytes FROM message WHERE \(filter)", arguments: arguments)
        let rows = totals.flatMap { Int.fromDatabaseValue($0.storedValue(Column("rows"))) } ?? 0
        let bytes = totals.flatMap { Double.fromDatabaseValue($0.storedValue(Column("bytes"))) } ?? 0
        return (rows, clampedInt(bytes))
    }

    /// The results waiting, in rows and in groups, and their bytes.
    static func allTotals(_ db: Database) throws -> (rows: Int, bytes: Int) {
        let (rows, bytes) = try totals(db)
        let grouped = try MessageGroup.totals(db)
        return (rows + grouped.rows, bytes + grouped.bytes)
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
        /// Sessions whose position 0 this write added.
        var openedSessions: Set<String> = []
    }

    /// Writes `groups`, `drops` and the changes to the identity (`identity`, a nil value
    /// deleting its key) in one transaction, then applies the caps. A session's position 0 is
    /// the first result of it an opening appends, so only there is the `session` table looked
    /// at (once per session per opening, off the append path: `openedSessions` are those an
    /// earlier write of this opening looked at). The analytics session of the
    /// last result is kept in the `identity` table, so it rotates across openings too, unless
    /// `identityIsNewer`: the changes were made after the last result was appended.
    @discardableResult
    func write(
        _ groups: [PendingGroup], drops: [DropReason: Int], identity: [String: String?] = [:], identityIsNewer: Bool = false,
        openedSessions: Set<String> = [], now: Double
    ) throws -> Written {
        var added: [String: Int64] = [:]
        let written = try transaction { db in
            added = [:]
            var last: (StampedEnvelope, Int64)?
            var checked: Set<Int64> = []
            try MessageGroup.insert(groups, in: db) { stamped in
                if let last, last.0 === stamped { return last.1 }
                var id = added[stamped.jsonText] ?? envelopes.withLock { $0.ids[stamped.jsonText] }
                // A row this opening wrote before may since be gone: another process's opening
                // prunes the envelopes no result uses (a writer's are, between its results).
                // Looked up once per transaction; gone, it is written again under a new ID.
                if let cached = id, added[stamped.jsonText] == nil, !checked.contains(cached) {
                    let present = try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM envelope WHERE id = ? AND json = ?)",
                        arguments: [cached, stamped.jsonText])
                    if present == true { checked.insert(cached) } else { id = nil }
                }
                if id == nil {
                    try db.execute(sql: "INSERT INTO envelope(json) VALUES (?)", arguments: [stamped.jsonText])
                    id = db.lastInsertedRowID
                    added[stamped.jsonText] = id
                }
                let found = id ?? db.lastInsertedRowID
                last = (stamped, found)
                return found
            }
            var identity = identity
            // Every destination takes every result: the last group holds the last result.
            if !identityIsNewer, let lastGroup = groups.last(where: { $0.count > 0 }),
                let envelope = lastGroup.envelope?.envelope
            {
                identity[OutboxIdentity.Key.sessionId] = envelope.sessionId.map { String($0) }
                identity[OutboxIdentity.Key.lastEventTime] = String(lastGroup.lastTime)
            }
            try Self.save(identity, in: db)
            var lastSeq: [String: Int64] = [:]
            var (addedRows, addedBytes) = (0, 0)
            var written = Written()
            for group in groups where group.count > 0 {
                // Position 0 opens a session: looked up once per session per opening (a group of
                // each destination starts with it, maybe in an earlier write).
                if group.firstSeq == 0, !openedSessions.contains(group.session),
                    written.openedSessions.insert(group.session).inserted,
                    let recorded = try Self.recordedSeq(db, session: group.session), recorded > 0
                {
                    written.reusedSessions.append((group.session, recorded))
                }
                lastSeq[group.session] = max(lastSeq[group.session] ?? 0, group.nextSeq)
                addedRows += group.count
                addedBytes += group.bytes
            }
            for (name, next) in lastSeq { try Self.recordSession(name, nextSeq: next, in: db) }
            let oldestAdded = groups.lazy.map(\.appendedAt).min() ?? .infinity
            counters.withLock {
                $0.rows += addedRows
                $0.bytes += addedBytes
                $0.ageFloor = min($0.ageFloor, oldestAdded)
            }
            var capDrops = try applyCaps(db, now: now)
            for (reason, count) in drops { capDrops[reason, default: 0] += count }
            try Self.count(capDrops, in: db)
            written.capDrops = capDrops.filter { drops[$0.key] == nil }
            return written
        }
        if !added.isEmpty { envelopes.withLock { $0.ids.merge(added) { _, new in new } } }
        return written
    }

    /// Runs `body` in a write transaction of the file. When the transaction fails (at its
    /// commit too: a full disk), the file keeps nothing of it, and neither do the counters of
    /// waiting rows and bytes, nor the damage noted for ``reportGroupDamage(to:)``: they go
    /// back to what they were, inside the queue's hold of the file, so no other transaction
    /// runs between the failure and the restoring.
    func transaction<T>(_ body: (Database) throws -> T) throws -> T {
        try database.writeWithoutTransaction { db in
            let counted = counters.withLock { $0 }
            let damage = groupDamage.withLock { $0 }
            var outcome: T?
            do {
                try db.inTransaction {
                    outcome = try body(db)
                    return .commit
                }
            } catch {
                counters.withLock { $0 = counted }
                groupDamage.withLock { $0 = damage }
                throw error
            }
            guard let outcome else { preconditionFailure("a committed transaction without its body's outcome") }
            return outcome
        }
    }

    // MARK: - Identity and envelopes

    /// Sets (or, for nil, deletes) keys of the `identity` table.
    static func save(_ identity: [String: String?], in db: Database) throws {
        // Cached statements: a write saves the session's keys with every transaction.
        for (key, value) in identity {
            if let value {
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO identity(key, value) VALUES (?, ?)").execute(arguments: [key, value])
            } else {
                try db.cachedStatement(sql: "DELETE FROM identity WHERE key = ?").execute(arguments: [key])
            }
        }
    }

    /// Sets (or deletes) keys of the `identity` table in a transaction of their own.
    func save(_ identity: [String: String?]) throws {
        try transaction { db in try Self.save(identity, in: db) }
    }

    /// The `identity` table (keys whose value is not text left out).
    func identity() throws -> [String: String] {
        try database.read { db in
            var identity: [String: String] = [:]
            let cursor = try Row.fetchCursor(db, sql: "SELECT key, value FROM identity")
            while let row = try cursor.next() {
                if let key = String.fromDatabaseValue(row.storedValue(Column("key"))),
                    let value = String.fromDatabaseValue(row.storedValue(Column("value")))
                {
                    identity[key] = value
                }
            }
            return identity
        }
    }

    /// The envelope stored as row `id`.
    /// - Throws: ``UnreadableRow`` when there is no such row or it is not an envelope.
    func envelope(id: Int64) throws -> Envelope {
        if let cached = envelopes.withLock({ $0.parsed[id] }) { return cached }
        let text = try database.read { db in try String.fetchOne(db, sql: "SELECT json FROM envelope WHERE id = ?", arguments: [id]) }
        guard let text else { throw UnreadableRow(description: "its envelope (row \(id)) is missing") }
        let envelope = try Envelope(jsonText: text)
        envelopes.withLock { $0.parsed[id] = envelope }
        return envelope
    }

    /// Deletes the envelopes no row refers to, but for the last one: SQLite gives a new row
    /// the ID after the largest, so keeping it means no ID is ever given again (an uploader
    /// keeps envelopes parsed by ID).
    private static func pruneEnvelopes(_ db: Database) throws {
        try db.execute(
            sql: """
                DELETE FROM envelope WHERE id < (SELECT max(id) FROM envelope)
                AND id NOT IN (SELECT envelope FROM message WHERE envelope IS NOT NULL)
                AND id NOT IN (SELECT envelope FROM deadLetter WHERE envelope IS NOT NULL)
                AND id NOT IN (SELECT envelope FROM messageGroup WHERE envelope IS NOT NULL)
                """)
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

    /// The time of the oldest waiting result (NULL when none): reads every group's row.
    static let oldestAppendedSQL =
        "SELECT min(appendedAt) FROM (SELECT min(appendedAt) AS appendedAt FROM message UNION ALL SELECT min(appendedAt) FROM messageGroup)"

    /// Drops the oldest results over the row, byte and age caps; returns the counts by reason.
    /// (Dead letters are never dropped for room: ``deadLetter(_:status:body:reason:now:)``
    /// refuses what does not fit.) The rows and byte caps take `message` rows first, then
    /// groups' entries, oldest first.
    private func applyCaps(_ db: Database, now: Double) throws -> [DropReason: Int] {
        var drops: [DropReason: Int] = [:]
        let rows = counters.withLock { $0.rows }
        if rows > configuration.maximumRows {
            drops[.rowCap] = try dropOldest(db, now: now) { removed, _, _ in removed < rows - configuration.maximumRows }
        }
        let bytesNow = counters.withLock { $0.bytes }
        if bytesNow > configuration.maximumBytes {
            let excess = bytesNow - configuration.maximumBytes
            drops[.byteCap] = try dropOldest(db, now: now) { _, removedBytes, _ in removedBytes < excess }
        }
        let cutoff = now - configuration.maximumAge.inSeconds
        if counters.withLock({ $0.ageFloor < cutoff }) {
            let oldest = try Double.fetchOne(db, sql: Self.oldestAppendedSQL)
            // A time read in this transaction stays a bound if it rolls back (that only removes rows).
            counters.withLock { $0.ageFloor = oldest ?? .infinity }
            if let oldest, oldest < cutoff {
                drops[.age] = try dropOldest(db, now: now, groupsBefore: cutoff) { _, _, appendedAt in appendedAt < cutoff }
            }
        }
        return drops.filter { $0.value > 0 }
    }

    /// Drops results from the oldest while `more(removedRows, removedBytes, appendedAt)` holds:
    /// `message` rows first, then the entries of groups, each group's oldest first (marked done
    /// with). With `groupsBefore`, only groups appended before that time are walked, and one
    /// whose entry does not qualify does not stop the walk (a group's results are older than
    /// the next group's, but not than another destination's). A group left with waiting
    /// entries takes the time of its oldest as its own, so the age cap's look at the oldest
    /// time does not find it again for results already gone.
    private func dropOldest(
        _ db: Database, now: Double, groupsBefore cutoff: Double? = nil, while more: (Int, Int, Double) -> Bool
    ) throws -> Int {
        var removed = 0
        var removedBytes = 0
        var lastID: Int64?
        let cursor = try Row.fetchCursor(db, sql: "SELECT id, bytes, appendedAt FROM message ORDER BY id")
        var stopped = false
        while let row = try cursor.next() {
            let appendedAt = Double.fromDatabaseValue(row.storedValue(MessageRecord.appendedAt)) ?? 0
            guard more(removed, removedBytes, appendedAt) else {
                stopped = true
                break
            }
            lastID = Int64.fromDatabaseValue(row.storedValue(Column("id")))
            removed += 1
            removedBytes += Self.saneBytes(row.storedValue(MessageRecord.bytes))
        }
        if let lastID { try db.execute(sql: "DELETE FROM message WHERE id <= ?", arguments: [lastID]) }
        counters.withLock {
            $0.rows -= removed
            $0.bytes -= removedBytes
        }
        guard !stopped || cutoff != nil else { return removed }
        let ids =
            if let cutoff {
                try Int64.fetchAll(db, sql: "SELECT id FROM messageGroup WHERE appendedAt < ? ORDER BY id", arguments: [cutoff])
            } else {
                try Int64.fetchAll(db, sql: "SELECT id FROM messageGroup ORDER BY id")
            }
        for id in ids {
            guard var group = try MessageGroup.fetch(db, id: id) else { continue }
            if group.isDamaged {
                // Damaged entries have no trusted index: set aside first, the rest stored anew.
                try repair(db, group, now: now)
                guard let repaired = try MessageGroup.fetch(db, id: id) else { continue }
                group = repaired
            }
            var marked: [(index: Int, bytes: Int)] = []
            var markedBytes = 0
            var groupStopped = false
            for entry in group.waiting {
                guard let index = entry.index, more(removed + marked.count, removedBytes + markedBytes, entry.appendedAt) else {
                    groupStopped = true
                    break
                }
                marked.append((index, entry.bytes))
                markedBytes += entry.bytes
            }
            let done = try MessageGroup.markDone(db, group: group.id, entries: marked)
            if let oldestLeft = group.waiting.dropFirst(marked.count).map(\.appendedAt).min() {
                try db.execute(
                    sql: "UPDATE messageGroup SET appendedAt = ? WHERE id = ? AND appendedAt < ?",
                    arguments: [oldestLeft, group.id, oldestLeft])
            }
            counters.withLock {
                $0.rows -= done.count
                $0.bytes -= done.bytes
            }
            removed += done.count
            removedBytes += done.bytes
            if groupStopped, cutoff == nil { break }
        }
        return removed
    }

    /// Repairs the damaged `group` (``MessageGroup/repair(_:_:pending:maximumDeadLetters:now:)``),
    /// keeping the counters and noting what was set aside or lost for ``reportGroupDamage(to:)``.
    func repair(_ db: Database, _ group: MessageGroup.Row, now: Double) throws {
        let pending = try MessageGroup.totals(db, filter: "id = ?", arguments: [group.id])
        let damage = try MessageGroup.repair(
            db, group, pending: (pending.rows, pending.bytes), maximumDeadLetters: configuration.maximumDeadLetters, now: now)
        forgetAgeFloor()
        note(damage)
    }

    /// Unpacks the oldest group into `message` rows
    /// (``MessageGroup/unpackOldest(_:maximumDeadLetters:now:)``); false when there is none.
    @discardableResult
    func unpackOldest(_ db: Database, now: Double) throws -> Bool {
        guard let damage = try MessageGroup.unpackOldest(db, maximumDeadLetters: configuration.maximumDeadLetters, now: now)
        else { return false }
        forgetAgeFloor()
        note(damage)
        return true
    }

    /// Makes the next transaction look for the oldest time (rows were put back with times of
    /// their own).
    private func forgetAgeFloor() {
        counters.withLock { $0.ageFloor = -.infinity }
    }

    /// Keeps the counters and notes the damage for ``reportGroupDamage(to:)``.
    private func note(_ damage: MessageGroup.Damage) {
        guard damage.removed + damage.setAside + damage.lost + damage.overCap > 0 else { return }
        counters.withLock {
            $0.rows -= damage.removed
            $0.bytes -= damage.removedBytes
        }
        groupDamage.withLock {
            $0.setAside += damage.setAside
            $0.lost += damage.lost
            $0.overCap += damage.overCap
        }
    }

    /// Reports the damaged entries met when repairing or unpacking groups since the last call,
    /// and returns how many became dead letters.
    @discardableResult
    func reportGroupDamage(to report: (OutboxError) -> Void) -> Int {
        let (setAside, lost, overCap) = groupDamage.withLock { damage in
            defer { damage = GroupDamage() }
            return (damage.setAside, damage.lost, damage.overCap)
        }
        if setAside > 0 { report(.unreadableRows(path: path, count: setAside)) }
        if lost > 0 { report(.unreadableLost(path: path, count: lost)) }
        if overCap > 0 {
            report(
                .storage(
                    path: path,
                    message:
                        "\(Plural.count(overCap, "damaged stored result")) found the dead letters full and were dropped (counted under dropped.deadLetterCap): anna outbox dead FILE shows them, --requeue makes room"
                ))
        }
        return setAside
    }

    /// Counts `drops` that happened outside a write (results never stored).
    func count(_ drops: [DropReason: Int]) throws {
        try transaction { db in try Self.count(drops, in: db) }
    }

    // MARK: - Reading for delivery

    /// The oldest results waiting for `destination`, at most `count` of them and `bytes`
    /// bytes (at least one), each decoded and checked: its `message` rows, then its groups'
    /// entries not done with. A damaged group is repaired first (its damaged entries set aside).
    func oldest(destination: String = "", count: Int, bytes: Int) throws -> [Stored] {
        while true {
            var damaged: MessageGroup.Row?
            let stored = try database.read { db in
                var stored: [Stored] = []
                var total = 0
                let cursor = try Stored.fetchCursor(
                    db, sql: "SELECT \(MessageRecord.selection) FROM message WHERE destination = ? ORDER BY id LIMIT ?",
                    arguments: [destination, count])
                while let item = try cursor.next() {
                    if !stored.isEmpty, total + item.bytes > bytes { return stored }
                    total += item.bytes
                    stored.append(item)
                }
                let groups = try Row.fetchCursor(
                    db, sql: "SELECT * FROM messageGroup WHERE destination = ? ORDER BY id", arguments: [destination])
                while stored.count < count, let row = try groups.next() {
                    let group = MessageGroup.decode(row)
                    if group.isDamaged, !configuration.readOnly {
                        damaged = group
                        return stored
                    }
                    for entry in group.waiting {
                        guard let index = entry.index, stored.count < count else { break }
                        if !stored.isEmpty, total + entry.bytes > bytes { return stored }
                        total += entry.bytes
                        stored.append(
                            Stored(
                                id: MessageGroup.reference(group: group.id, index: index), message: entry.message, bytes: entry.bytes,
                                destination: group.destination, envelope: group.envelope, defect: entry.defect))
                    }
                }
                return stored
            }
            guard let damaged else { return stored }
            try transaction { db in try repair(db, damaged, now: Date().timeIntervalSince1970) }
        }
    }

    /// Removes delivered results in one transaction: their rows, or their groups' entries
    /// (marked done with; a group goes once all of its entries are).
    func delete(_ items: [Stored]) throws {
        guard !items.isEmpty else { return }
        try transaction { db in try remove(db, items) }
    }

    private func remove(_ db: Database, _ items: [Stored]) throws {
        var rowIDs: [Int64] = []
        var entries: [Int64: [(index: Int, bytes: Int)]] = [:]
        for item in items {
            if let entry = MessageGroup.entry(of: item.id) {
                entries[entry.group, default: []].append((entry.index, item.bytes))
            } else {
                rowIDs.append(item.id)
            }
        }
        var (rows, bytes) = (0, 0)
        if !rowIDs.isEmpty {
            let list = rowIDs.map(String.init).joined(separator: ",")
            (rows, bytes) = try Self.totals(db, filter: "rowid IN (\(list))")
            try db.execute(sql: "DELETE FROM message WHERE rowid IN (\(list))")
        }
        for (group, marked) in entries {
            let done = try MessageGroup.markDone(db, group: group, entries: marked)
            rows += done.count
            bytes += done.bytes
        }
        counters.withLock { [rows, bytes] counters in
            counters.rows -= rows
            counters.bytes -= bytes
        }
    }

    /// Moves rows to the dead-letter table with the server's `status` and `body` (status 0:
    /// set aside by the outbox itself), in one transaction. Over
    /// ``OutboxConfiguration/maximumDeadLetters`` the oldest dead letters stay and the rows
    /// that do not fit are dropped, counted under `deadLetterCap`; returns how many.
    func deadLetter(_ items: [Stored], status: Int, body: String, reason: String, now: Double) throws -> Int {
        guard !items.isEmpty else { return 0 }
        return try transaction { db in
            let present = try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter") ?? 0
            let room = max(0, configuration.maximumDeadLetters - present)
            for item in items.prefix(room) {
                var record = DeadLetterRecord(item.message, status: status, responseBody: body, reason: reason, deadAt: now)
                (record.destination, record.envelope) = (item.destination, item.envelope)
                try record.insert(db)
            }
            try remove(db, items)
            let dropped = items.count - min(room, items.count)
            var drops = try applyCaps(db, now: now)
            if dropped > 0 { drops[.deadLetterCap, default: 0] += dropped }
            try Self.count(drops, in: db)
            return dropped
        }
    }

    /// Records how many rows the request under way to `destination` carries.
    func setInFlight(_ count: Int, destination: String = "") throws {
        try transaction { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO state(key, value) VALUES (?, ?)", arguments: [Self.inFlightKey(destination), count])
        }
    }

    /// The `state` key of `destination`'s rows in flight: `inFlight`, `inFlight:<name>`.
    static func inFlightKey(_ destination: String) -> String {
        destination.isEmpty ? "inFlight" : "inFlight:" + destination
    }

    // MARK: - Stats and dead letters

    /// The counts, read from the file: the totals, and each destination's.
    func stats(now: Double) throws -> OutboxStats {
        try database.read { db in
            let rows = try Self.allTotals(db).rows
            let oldest = try Double.fetchOne(db, sql: Self.oldestAppendedSQL)
            let inFlight = min(rows, try Int.fetchOne(db, sql: "SELECT total(value) FROM state WHERE key LIKE 'inFlight%'") ?? 0)
            let deadLetters = try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter") ?? 0
            let destinations = try Self.destinationStats(db, now: now)
            var dropped: [String: Int] = [:]
            let cursor = try Row.fetchCursor(db, sql: "SELECT reason, count FROM dropCount")
            while let (reason, count) = try Self.nextDropCount(cursor) {
                if let reason, let count { dropped[reason] = count }
            }
            var stats = OutboxStats(
                pending: rows - inFlight, inFlight: inFlight, deadLetter: deadLetters, dropped: dropped,
                oldestAgeSeconds: oldest.map { max(0, now - $0) } ?? 0)
            stats.destinations = destinations
            return stats
        }
    }

    /// Each destination's rows waiting and in flight, dead letters and oldest age.
    private static func destinationStats(_ db: Database, now: Double) throws -> [String: DestinationStats] {
        var destinations: [String: DestinationStats] = [:]
        for group in try groups(db, table: "message", oldest: "min(appendedAt)")
            + groups(
                db, table: MessageGroup.table, oldest: "min(appendedAt)",
                rows: "total(max(min(max(count, 0), \(MessageGroup.maximumCount)) - max(doneCount, 0), 0))")
        {
            var stats = destinations[group.name] ?? DestinationStats()
            stats.pending += group.rows
            if let oldest = group.oldest { stats.oldestAgeSeconds = max(stats.oldestAgeSeconds, max(0, now - oldest)) }
            destinations[group.name] = stats
        }
        for group in try groups(db, table: "deadLetter", oldest: "NULL") {
            var stats = destinations[group.name] ?? DestinationStats()
            stats.deadLetter = group.rows
            destinations[group.name] = stats
        }
        for (name, var stats) in destinations {
            let inFlight = try Int.fetchOne(db, sql: "SELECT value FROM state WHERE key = ?", arguments: [inFlightKey(name)]) ?? 0
            stats.inFlight = min(stats.pending, max(0, inFlight))
            stats.pending -= stats.inFlight
            destinations[name] = stats
        }
        return destinations
    }

    /// The rows of `table` by destination, with the `oldest` expression (an aggregate) of each.
    private static func groups(
        _ db: Database, table: String, oldest: String, rows: String = "count(*)"
    ) throws -> [(name: String, rows: Int, oldest: Double?)] {
        var groups: [(name: String, rows: Int, oldest: Double?)] = []
        let cursor = try Row.fetchCursor(
            db, sql: "SELECT CAST(destination AS TEXT) AS name, \(rows) AS rows, \(oldest) AS oldest FROM \(table) GROUP BY destination")
        while let row = try cursor.next() {
            let name = String.fromDatabaseValue(row.storedValue(Column("name")))
            let rows = clampedInt(Double.fromDatabaseValue(row.storedValue(Column("rows"))) ?? 0)
            let oldestValue = Double.fromDatabaseValue(row.storedValue(Column("oldest")))
            if let name { groups.append((name, rows, oldestValue)) }
        }
        return groups
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
        let deleted = try transaction { db in
            let count =
                (try Self.allTotals(db).rows)
                + (try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter") ?? 0)
            try db.execute(
                sql: """
                    DELETE FROM message; DELETE FROM messageGroup; DELETE FROM deadLetter; DELETE FROM dropCount; \
                    DELETE FROM envelope; DELETE FROM identity
                    """)
            counters.withLock { $0 = Counters() }
            envelopes.withLock { $0 = EnvelopeCache() }
            return count
        }
        try database.vacuum()
        _ = try database.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        return deleted
    }

    func requeueDeadLetters(now: Double) throws -> (requeued: Int, kept: Int) {
        try transaction { db in
            // The end of the queue is after the groups: they are unpacked first.
            while try unpackOldest(db, now: now) {}
            var requeued = 0
            var kept = try Int.fetchOne(db, sql: "SELECT count(*) FROM deadLetter WHERE status = 0") ?? 0
            for record in try DeadLetterRecord.fetchAll(db, sql: "SELECT * FROM deadLetter WHERE status != 0 ORDER BY id") {
                guard let id = record.id, let message = record.requeueable else {
                    kept += 1
                    continue
                }
                let entry = Entry(
                    message: message, bytes: WireFormat.estimatedBytes(of: message), appendedAt: now,
                    destination: record.destination ?? "")
                let statement = try db.cachedStatement(sql: Entry.insertSQL)
                statement.setUncheckedArguments(entry.arguments(envelope: record.envelope))
                try statement.execute()
                try db.execute(sql: "DELETE FROM deadLetter WHERE id = ?", arguments: [id])
                counters.withLock {
                    $0.rows += 1
                    $0.bytes += entry.bytes
                }
                requeued += 1
            }
            if requeued > 0 { forgetAgeFloor() }
            return (requeued, kept)
        }
    }
}

/// The file is damaged (what `PRAGMA quick_check` or SQLite said).
struct OutboxDamage: Error, CustomStringConvertible {
    var detail: String
    var description: String { detail }
}

extension OutboxStore {
    /// Records a damaged row of a salvaged file as a dead letter (status 0) without a row to delete.
    func deadLetterUnreadable(_ item: Stored, now: Double) throws {
        try transaction { db in
            try DeadLetterRecord(
                item.message, status: 0, responseBody: "", reason: "unreadable: \(item.defect ?? "damaged")", deadAt: now
            ).insert(db)
        }
    }
}
