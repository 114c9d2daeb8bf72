import Anna
import AnnaTestSupport
import Foundation
import GRDB
import Testing

@testable import AnnaOutbox

/// Row IDs an outbox relies on: a group never names an envelope that is gone, an envelope's
/// ID is never given to another, and IDs SQLite would not give (a file changed by hand, or
/// damaged) make the file salvaged instead of crashing or looping.
@Suite struct OutboxRowIDTests {
    static func envelope(_ anonymousId: String) -> StampedEnvelope {
        StampedEnvelope(Envelope(anonymousId: anonymousId, userId: nil, sessionId: nil, context: [:], superProperties: [:]))
    }

    /// `count` results of `session` (`n` each, appended at 1,000 s) stamped with `envelope`, as groups.
    static func groups(session: String, count: Int, envelope: StampedEnvelope? = nil) -> [PendingGroup] {
        PendingGroup.groups(
            of: (0..<count).map { n in
                OutboxStore.Entry(
                    message: OutboxMessage(
                        messageId: MessageID.make(session: session, seq: Int64(n)), session: session, seq: Int64(n), time: 0,
                        task: "t", path: "/p", event: "e", result: "\(n)"),
                    bytes: 100, appendedAt: 1000, envelope: envelope)
            })
    }

    static func envelopeRows(_ store: OutboxStore) throws -> [Int64: String] {
        try store.database.read { db in
            var rows: [Int64: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, json FROM envelope") { rows[row["id"]] = row["json"] }
            return rows
        }
    }

    /// Another process's opening prunes the envelopes no result uses, the writer's too: the
    /// writer then writes its envelope again (it had stamped its next groups with the row that
    /// was gone), and no envelope ID is ever given to another.
    @Test func aPrunedEnvelopeIsWrittenAgainAndNoIDIsGivenTwice() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        let writer = try OutboxStore(path: path, configuration: OutboxConfiguration())
        try writer.write(Self.groups(session: "a", count: 3, envelope: Self.envelope("first")), drops: [:], now: 1000)
        try writer.write(Self.groups(session: "b", count: 3, envelope: Self.envelope("second")), drops: [:], now: 1000)
        try writer.delete(try writer.oldest(count: 100, bytes: .max))
        #expect(writer.pendingRows == 0)

        // An uploader opens the file: envelope 1, unused now, goes; 2, the newest, stays.
        _ = try OutboxStore(path: path, configuration: OutboxConfiguration())
        #expect(try Self.envelopeRows(writer).keys.sorted() == [2])
        // The writer's next results carry their envelope again, under a new ID.
        try writer.write(Self.groups(session: "c", count: 2, envelope: Self.envelope("first")), drops: [:], now: 1000)
        let sent = try writer.oldest(count: 100, bytes: .max)
        #expect(sent.map(\.envelope) == [3, 3])
        #expect(try sent.map { try writer.envelope(id: try #require($0.envelope)).anonymousId } == ["first", "first"])
        #expect(try Self.envelopeRows(writer)[3]?.contains("first") == true)
    }

    /// A file of `count` results appended through an ``Outbox``, then changed by `change` (SQL).
    static func changedFile(in folder: TemporaryFolder, count: Int, _ change: (Database) throws -> Void) throws -> String {
        let path = folder.file("outbox.sqlite")
        do {
            let outbox = try Outbox(path: path)
            for n in 0..<count { try outbox.append(AnalyticsResult(value: .number(Double(n))), session: "s", time: 0) }
            outbox.close()
        }
        let database = try DatabaseQueue(path: path)
        try database.write(change)
        try database.close()
        return path
    }

    /// The results waiting in `outbox`, oldest first.
    static func waiting(_ outbox: Outbox) throws -> [String] {
        try outbox.store.oldest(count: 100, bytes: .max).compactMap { $0.message?.result }
    }

    @Test(arguments: [Int64(1) << 62, -3])  // 2^62: its references overflowed (a crash)
    func groupIDsOutOfRangeAreSalvaged(id: Int64) throws {
        let folder = try TemporaryFolder()
        let path = try Self.changedFile(in: folder, count: 5) { db in
            // The results may be in one group or two (the first is written at once): the last changes.
            try db.execute(sql: "UPDATE messageGroup SET id = ? WHERE id = (SELECT max(id) FROM messageGroup)", arguments: [id])
        }
        let errors = ErrorLog()
        let outbox = try Outbox(path: path, onError: errors.handler)
        defer { outbox.close() }
        let salvage = try #require(outbox.salvage)
        #expect("\(salvage)".contains("row IDs out of range (group \(id))"), "\(salvage)")
        #expect(Set(try Self.waiting(outbox)) == ["0", "1", "2", "3", "4"])
        #expect(try outbox.stats().pending == 5)
    }

    /// A `message` row with a negative ID was taken for a reference to a group's entry: never
    /// removed once delivered, so sent again and again.
    @Test func aMessageRowWithANegativeIDIsSalvagedNotLost() throws {
        let folder = try TemporaryFolder()
        let path = try Self.changedFile(in: folder, count: 1) { db in
            let entry = OutboxStore.Entry(
                message: OutboxMessage(
                    messageId: "m-old", session: "old", seq: 0, time: 0, task: nil, path: nil, event: nil, result: "\"old\""),
                bytes: 10, appendedAt: 0)
            try db.execute(sql: OutboxStore.Entry.insertSQL, arguments: entry.arguments(envelope: nil))
            try db.execute(sql: "UPDATE message SET id = -5")
        }
        let errors = ErrorLog()
        let outbox = try Outbox(path: path, onError: errors.handler)
        defer { outbox.close() }
        let salvage = try #require(outbox.salvage)
        #expect("\(salvage)".contains("row IDs out of range (message row -5)"), "\(salvage)")
        #expect(Set(try Self.waiting(outbox)) == ["\"old\"", "0"])
        #expect(try outbox.stats().pending == 2)
    }
}
