import CoreJS
import Foundation
import GRDB

/// Recovery of a damaged outbox file: the file is renamed aside, every row that can still be
/// read and passes its checksum is copied into a new file, rows that fail it become dead
/// letters, and the rest is counted as lost (`corrupt`).
enum OutboxSalvage {
    /// What is damaged, when `error` says the file is (rather than, say, unreadable by permission).
    static func damage(in error: any Error) -> String? {
        if let damage = error as? OutboxDamage { return damage.detail }
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_AUTH,
            .SQLITE_NOMEM:
            return nil
        default:
            return error.message ?? "\(error)"
        }
    }

    /// Sets the file at `path` aside and builds a new one from what it still holds.
    static func salvage(path: String, configuration: OutboxConfiguration, detail: String) throws -> (OutboxStore, OutboxError) {
        let files = FileManager.default
        let now = Date().timeIntervalSince1970
        let damagedCopy = "\(path).damaged-\(Int64(now * 1000))"
        do {
            try files.moveItem(atPath: path, toPath: damagedCopy)
            for suffix in ["-wal", "-shm"] where files.fileExists(atPath: path + suffix) {
                try files.moveItem(atPath: path + suffix, toPath: damagedCopy + suffix)
            }
        } catch {
            throw OutboxError.storage(path: path, message: "the file is damaged (\(detail)) and cannot be set aside: \(error)")
        }
        let recovered = read(damagedCopy)
        let store: OutboxStore
        do {
            var fresh = configuration
            fresh.verifiesOnOpen = false
            store = try OutboxStore(path: path, configuration: fresh)
            try store.transaction { db in
                for (session, next) in recovered.sessions { try OutboxStore.recordSession(session, nextSeq: next, in: db) }
                try OutboxStore.save(recovered.identity, in: db)
            }
            let good = recovered.rows.filter { $0.defect == nil }
            let entries = good.compactMap { item in
                item.message.map {
                    OutboxStore.Entry(
                        message: $0, bytes: item.bytes, appendedAt: now, destination: item.destination,
                        envelope: item.envelope.flatMap { recovered.envelopes[$0] })
                }
            }
            var drops = recovered.drops
            drops[.corrupt, default: 0] += recovered.lost
            try store.write(PendingGroup.groups(of: entries), drops: drops, now: now)
            let bad = recovered.rows.filter { $0.defect != nil }
            for item in bad {
                // Only the ID is needed for the dead letter; the row itself is not in the new file.
                try store.deadLetterUnreadable(item, now: now)
            }
        } catch {
            throw OutboxError.storage(path: path, message: "the file is damaged (\(detail)) and a new one cannot be written: \(error)")
        }
        let unreadable = recovered.rows.count(where: { $0.defect != nil }) + recovered.lost
        let summary = OutboxError.salvaged(
            path: path, damagedCopy: damagedCopy, recovered: recovered.rows.count(where: { $0.defect == nil }),
            unreadable: unreadable,
            detail: detail + (recovered.notes.isEmpty ? "" : "; " + recovered.notes.joined(separator: "; ")))
        return (store, summary)
    }

    /// The damaged file has no identity tables (it predates them).
    private struct NoIdentity: Error {}

    struct Recovered {
        var rows: [OutboxStore.Stored] = []
        var sessions: [String: Int64] = [:]
        var drops: [DropReason: Int] = [:]
        /// Rows known to be lost (IDs skipped over damaged pages).
        var lost = 0
        /// The envelopes that could be read, by row (a row whose envelope is lost is sent without).
        var envelopes: [Int64: StampedEnvelope] = [:]
        /// The identity table.
        var identity: [String: String?] = [:]
        var notes: [String] = []
    }

    /// Everything readable in the damaged file; never throws (what fails is noted).
    static func read(_ path: String) -> Recovered {
        var recovered = Recovered()
        let database: DatabaseQueue
        do {
            var configuration = OutboxConfiguration()
            configuration.verifiesOnOpen = false
            database = try OutboxStore.openQueue(path: path, configuration: configuration, readonly: true)
        } catch {
            recovered.notes.append("nothing could be read: \(error)")
            return recovered
        }
        defer { try? database.close() }  // a read-only handle: nothing to lose on close
        do {
            try database.read { db in
                do {
                    let cursor = try Row.fetchCursor(db, sql: "SELECT name, nextSeq FROM session")
                    while let row = try cursor.next() {
                        if let name = String.fromDatabaseValue(row.storedValue(Column("name"))),
                            let next = Int64.fromDatabaseValue(row.storedValue(Column("nextSeq")))
                        {
                            recovered.sessions[name] = max(recovered.sessions[name] ?? 0, next)
                        }
                    }
                } catch {
                    recovered.notes.append("the sessions could not all be read (\(error))")
                }
                do {
                    let cursor = try Row.fetchCursor(db, sql: "SELECT reason, count FROM dropCount")
                    while let (name, count) = try OutboxStore.nextDropCount(cursor) {
                        if let reason = name.flatMap(DropReason.init(rawValue:)), let count, count > 0 {
                            recovered.drops[reason, default: 0] += count
                        }
                    }
                } catch {
                    recovered.notes.append("the drop counts could not all be read (\(error))")
                }
                do {
                    // A file written before destinations existed has neither table.
                    guard try db.tableExists("envelope"), try db.tableExists("identity") else { throw NoIdentity() }
                    let cursor = try Row.fetchCursor(db, sql: "SELECT id, json FROM envelope")
                    while let row = try cursor.next() {
                        guard let id = Int64.fromDatabaseValue(row.storedValue(Column("id"))),
                            let text = String.fromDatabaseValue(row.storedValue(Column("json")))
                        else { continue }
                        do { recovered.envelopes[id] = StampedEnvelope(try Envelope(jsonText: text)) } catch {
                            recovered.notes.append("an envelope is unreadable (\(error))")
                        }
                    }
                    let identity = try Row.fetchCursor(db, sql: "SELECT key, value FROM identity")
                    while let row = try identity.next() {
                        if let key = String.fromDatabaseValue(row.storedValue(Column("key"))),
                            let value = String.fromDatabaseValue(row.storedValue(Column("value")))
                        {
                            recovered.identity[key] = value
                        }
                    }
                } catch is NoIdentity {
                } catch {
                    recovered.notes.append("the identity could not all be read (\(error))")
                }
                readMessages(db, into: &recovered)
                readGroups(db, into: &recovered)
            }
        } catch {
            recovered.notes.append("reading failed: \(error)")
        }
        for row in recovered.rows where row.defect == nil {
            if let message = row.message {
                recovered.sessions[message.session] = max(recovered.sessions[message.session] ?? 0, message.seq + 1)
            }
        }
        return recovered
    }

    /// Reads the groups' entries not done with, one group at a time: a damaged entry becomes a
    /// row with a defect (a dead letter in the new file), an unreadable one is counted lost, and
    /// a group that cannot be read at all is noted.
    private static func readGroups(_ db: Database, into recovered: inout Recovered) {
        let ids: [Int64]
        do {
            guard try db.tableExists(MessageGroup.table) else { return }
            ids = try Int64.fetchAll(db, sql: "SELECT id FROM messageGroup ORDER BY id")
        } catch {
            recovered.notes.append("the groups of results could not be listed (\(error))")
            return
        }
        var unreadable = 0
        for id in ids {
            do {
                guard let group = try MessageGroup.fetch(db, id: id) else { continue }
                for entry in group.waiting {
                    guard entry.message != nil else {
                        recovered.lost += 1
                        continue
                    }
                    recovered.rows.append(
                        OutboxStore.Stored(
                            id: -1, message: entry.message, bytes: entry.bytes, destination: group.destination,
                            envelope: group.envelope, defect: entry.defect))
                }
                recovered.lost += group.lost
            } catch {
                unreadable += 1
            }
        }
        if unreadable > 0 { recovered.notes.append("\(Plural.count(unreadable, "group")) of results could not be read at all") }
    }

    /// Reads rows in ID order; over a damaged stretch, probes further IDs at doubling
    /// distances (at most 64 failures in a row), counting the IDs skipped as lost.
    private static func readMessages(_ db: Database, into recovered: inout Recovered) {
        // IDs of 0 and below (SQLite never gives them: a hand or damage did) come first, read
        // as they are; the new file gives them IDs of its own.
        do {
            let cursor = try OutboxStore.Stored.fetchCursor(
                db, sql: "SELECT rowid AS rowid, * FROM message WHERE rowid <= 0 ORDER BY rowid")
            while let item = try cursor.next() { recovered.rows.append(item) }
        } catch {
            recovered.notes.append("rows with IDs of 0 or below are damaged (\(error))")
        }
        var after: Int64 = 0
        var step: Int64 = 1
        var failures = 0
        var skipped: Int64 = 0
        while failures < 64 {
            do {
                let cursor = try OutboxStore.Stored.fetchCursor(
                    db, sql: "SELECT rowid AS rowid, * FROM message WHERE rowid > ? ORDER BY rowid", arguments: [after])
                while let item = try cursor.next() {
                    guard item.id > after else { continue }
                    if failures > 0 {
                        recovered.lost += Int(min(skipped, item.id - 1 - after))
                        skipped = 0
                        failures = 0
                        step = 1
                    }
                    recovered.rows.append(item)
                    after = item.id
                }
                return
            } catch {
                if failures == 0 { recovered.notes.append("rows after ID \(after) are damaged (\(error))") }
                failures += 1
                let (next, overflow) = after.addingReportingOverflow(step)
                if overflow { break }
                after = next
                skipped += step
                step = min(step * 2, Int64(1) << 40)
            }
        }
        recovered.notes.append("no row could be read after ID \(after)")
    }
}
