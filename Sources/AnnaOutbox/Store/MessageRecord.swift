import CoreJS
import GRDB

/// The `message` table's rows: an ``OutboxStore/Entry`` is inserted (through one prepared
/// statement: a GRDB `PersistableRecord` costs the append path half its rate), an
/// ``OutboxStore/Stored`` read back as a GRDB `FetchableRecord`, by column name.
enum MessageRecord {
    /// The table.
    static let table = "message"
    /// The size of the message on the wire.
    static let bytes = Column("bytes")
    /// When it was appended, in seconds since the epoch (the age cap).
    static let appendedAt = Column("appendedAt")
    /// ``OutboxMessage/checksum``.
    static let checksum = Column("checksum")
    /// The row's key, selected as `rowid AS rowid`: in a damaged file whose schema was
    /// salvaged, only the row ID is sure to be the key (and SQLite would name it `id`).
    static let rowID = Column("rowid")
    /// What ``OutboxStore/Stored`` reads, for a `SELECT`.
    static let selection = "rowid AS rowid, messageId, session, seq, time, task, path, event, result, bytes, checksum"
}

extension OutboxStore.Entry {
    /// The columns an entry fills, in the order of ``arguments``.
    static let columns = MessageColumn.all + [MessageRecord.bytes, MessageRecord.appendedAt, MessageRecord.checksum]

    /// The values of ``columns``.
    var arguments: StatementArguments {
        [
            message.messageId, message.session, message.seq, message.time, message.task, message.path, message.event,
            message.result, bytes, appendedAt, message.checksum,
        ]
    }

    /// The `message` table's one `INSERT`, built from ``columns``.
    static let insertSQL = MessageColumn.insertSQL(into: MessageRecord.table, columns: columns)

    /// Inserts `entries`, in order, through one statement prepared once per connection (an
    /// append costs its bindings and SQLite's work, nothing per row besides).
    static func insert(_ entries: some Sequence<Self>, in db: Database) throws {
        let statement = try db.cachedStatement(sql: insertSQL)
        for entry in entries {
            statement.setUncheckedArguments(entry.arguments)
            try statement.execute()
        }
    }
}

extension OutboxStore.Stored: FetchableRecord {
    /// A row of ``MessageRecord/selection``, checked against its checksum and its result
    /// parsed, never trusted: a damaged row comes back with a defect.
    init(row: Row) {
        let id = Int64.fromDatabaseValue(row.storedValue(MessageRecord.rowID)) ?? -1
        let bytes = OutboxStore.saneBytes(row.storedValue(MessageRecord.bytes))
        guard let checksum = Int64.fromDatabaseValue(row.storedValue(MessageRecord.checksum)) else {
            self.init(id: id, message: nil, bytes: bytes, defect: "a column is missing or of the wrong type")
            return
        }
        let message: OutboxMessage
        do {
            message = try OutboxMessage(columnsOf: row)
        } catch {
            self.init(id: id, message: nil, bytes: bytes, defect: error.description)
            return
        }
        guard message.checksum == checksum else {
            self.init(id: id, message: message, bytes: bytes, defect: "the checksum does not match")
            return
        }
        do {
            _ = try JSONValue(parsing: message.result)
        } catch {
            self.init(id: id, message: message, bytes: bytes, defect: "the result is not JSON: \(error)")
            return
        }
        self.init(id: id, message: message, bytes: bytes, defect: nil)
    }
}
