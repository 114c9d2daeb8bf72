import GRDB

/// What an outbox file holds for delivery, read without an ``Outbox`` (only read):
/// the `message` rows, then the groups' entries not done with, each in stored order,
/// which is each destination's delivery order. For tools and tests that look into a file
/// another process writes.
package enum OutboxFileReader {
    /// One waiting result: its destination (`""`, the default one) and its message (nil when
    /// the stored bytes do not decode).
    package struct Pending: Sendable {
        package var destination: String
        package var message: OutboxMessage?
    }

    /// The waiting results of the file at `path`, in stored order.
    package static func pending(path: String) throws -> [Pending] {
        // Read-write, so a write-ahead log left by a killed writer can be recovered.
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }  // read only: nothing to lose if closing fails
        return try queue.read { db in try pending(db) }
    }

    /// The waiting results in `db`, in stored order.
    package static func pending(_ db: Database) throws -> [Pending] {
        var pending: [Pending] = []
        let rows = try OutboxStore.Stored.fetchCursor(db, sql: "SELECT \(MessageRecord.selection) FROM message ORDER BY id")
        while let row = try rows.next() { pending.append(Pending(destination: row.destination, message: row.message)) }
        guard try db.tableExists(MessageGroup.table) else { return pending }
        let groups = try Row.fetchCursor(db, sql: "SELECT * FROM messageGroup ORDER BY id")
        while let row = try groups.next() {
            let group = MessageGroup.decode(row)
            for entry in group.waiting { pending.append(Pending(destination: group.destination, message: entry.message)) }
        }
        return pending
    }
}
