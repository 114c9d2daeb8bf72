import AnnaOutbox
import GRDB

/// A row of the collector's `result` table: a message as received (its time as the ISO 8601
/// text of the body) and when it arrived. Read as a GRDB `FetchableRecord`, by column name;
/// written through one prepared statement (``insertSQL``).
struct CollectedMessage: FetchableRecord {
    static let table = "result"
    static let receivedAt = Column("receivedAt")
    /// The columns a row fills, in the order of ``arguments``.
    static let columns = MessageColumn.all + [receivedAt]
    /// The table's one `INSERT`: a message ID stored before is ignored (a resent batch).
    static let insertSQL = MessageColumn.insertSQL(into: table, columns: columns, orIgnore: true)

    var message: OutboxMessage
    /// When it arrived, in seconds since the epoch.
    var receivedAt: Double

    init(message: OutboxMessage, receivedAt: Double) {
        self.message = message
        self.receivedAt = receivedAt
    }

    /// A row the collector wrote: its columns have their types (a store is not salvaged).
    /// - Throws: ``UnreadableTime`` when `time` is not the ISO 8601 text it wrote.
    init(row: Row) throws {
        let text: String = row[MessageColumn.time]
        guard let time = WireFormat.milliseconds(iso8601: text) else { throw UnreadableTime(text: text) }
        message = OutboxMessage(
            messageId: row[MessageColumn.messageId], session: row[MessageColumn.session], seq: row[MessageColumn.seq],
            time: time, task: row[MessageColumn.task], path: row[MessageColumn.path], event: row[MessageColumn.event],
            result: row[MessageColumn.result])
        receivedAt = row[Self.receivedAt]
    }

    /// The values of ``columns``; the time as the ISO 8601 text the body carried.
    var arguments: StatementArguments {
        [
            message.messageId, message.session, message.seq, WireFormat.iso8601(milliseconds: message.time), message.task,
            message.path, message.event, message.result, receivedAt,
        ]
    }
}

/// A stored time that is not ISO 8601 text.
struct UnreadableTime: Error, CustomStringConvertible {
    var text: String
    var description: String { "a stored time is not ISO 8601: \(text)" }
}
