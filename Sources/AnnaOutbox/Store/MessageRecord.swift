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
    /// ``OutboxMessage/checksum(destination:envelope:)``.
    static let checksum = Column("checksum")
    /// The destination the row is queued for (`''`: the default one).
    static let destination = Column("destination")
    /// The row of the `envelope` table the message was stamped with, if any.
    static let envelope = Column("envelope")
    /// The row's key, selected as `rowid AS rowid`: in a damaged file whose schema was
    /// salvaged, only the row ID is sure to be the key (and SQLite would name it `id`).
    static let rowID = Column("rowid")
    /// What ``OutboxStore/Stored`` reads, for a `SELECT`.
    static let selection =
        "rowid AS rowid, messageId, session, seq, time, task, path, event, result, bytes, checksum, destination, envelope"
}

extension OutboxStore.Entry {
    /// The columns an entry fills, in the order of ``arguments(envelope:)``.
    static let columns =
        MessageColumn.all + [
            MessageRecord.bytes, MessageRecord.appendedAt, MessageRecord.checksum, MessageRecord.destination,
            MessageRecord.envelope,
        ]

    /// The values of ``columns``, the envelope stored as row `envelope`.
    func arguments(envelope: Int64?) -> StatementArguments {
        let message = message
        return [
            message.messageId, message.session, message.seq, message.time, message.task, message.path, message.event,
            message.result, bytes, appendedAt, message.checksum(destination: destination, envelope: envelope), destination,
            envelope,
        ]
    }

    /// The `message` table's one `INSERT`, built from ``columns``.
    static let insertSQL = MessageColumn.insertSQL(into: MessageRecord.table, columns: columns)
}

extension OutboxStore.Stored: FetchableRecord {
    /// A row of ``MessageRecord/selection``, checked against its checksum and its result
    /// parsed, never trusted: a damaged row comes back with a defect.
    init(row: Row) {
        let id = Int64.fromDatabaseValue(row.storedValue(MessageRecord.rowID)) ?? -1
        let bytes = OutboxStore.saneBytes(row.storedValue(MessageRecord.bytes))
        let destination = String.fromDatabaseValue(row.storedValue(MessageRecord.destination)) ?? ""
        let envelope = Int64.fromDatabaseValue(row.storedValue(MessageRecord.envelope))
        func stored(_ message: OutboxMessage?, _ defect: String?) -> Self {
            Self(id: id, message: message, bytes: bytes, destination: destination, envelope: envelope, defect: defect)
        }
        guard let checksum = Int64.fromDatabaseValue(row.storedValue(MessageRecord.checksum)) else {
            self = stored(nil, "a column is missing or of the wrong type")
            return
        }
        let message: OutboxMessage
        do {
            message = try OutboxMessage(columnsOf: row)
        } catch {
            self = stored(nil, error.description)
            return
        }
        guard message.checksum(destination: destination, envelope: envelope) == checksum else {
            self = stored(message, "the checksum does not match")
            return
        }
        do {
            _ = try JSONValue(parsing: message.result)
        } catch {
            self = stored(message, "the result is not JSON: \(error)")
            return
        }
        self = stored(message, nil)
    }
}
