import GRDB

/// The columns that hold a message's eight fields, under the same names in every table that
/// keeps messages (the outbox's `message` and `deadLetter`, the collector's `result`).
package enum MessageColumn {
    /// ``OutboxMessage/messageId``.
    package static let messageId = Column("messageId")
    /// ``OutboxMessage/session``.
    package static let session = Column("session")
    /// ``OutboxMessage/seq``.
    package static let seq = Column("seq")
    /// ``OutboxMessage/time``.
    package static let time = Column("time")
    /// ``OutboxMessage/task``.
    package static let task = Column("task")
    /// ``OutboxMessage/path``.
    package static let path = Column("path")
    /// ``OutboxMessage/event``.
    package static let event = Column("event")
    /// ``OutboxMessage/result``.
    package static let result = Column("result")
    /// The eight, in the order of the message's fields.
    package static let all = [messageId, session, seq, time, task, path, event, result]

    /// `INSERT [OR IGNORE] INTO table(columns…) VALUES (?, …)`: a table's one `INSERT`, for a
    /// statement prepared once (`Database.cachedStatement`) and bound per row, which costs an
    /// append a fraction of what a GRDB `PersistableRecord` does (a container per row).
    package static func insertSQL(into table: String, columns: [Column], orIgnore: Bool = false) -> String {
        let names = columns.map(\.name).joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return "INSERT \(orIgnore ? "OR IGNORE " : "")INTO \(table)(\(names)) VALUES (\(marks))"
    }
}

/// Why a row's columns do not make a message.
struct UnreadableRow: Error, CustomStringConvertible {
    var description: String
}

extension OutboxMessage {
    /// The message in `row`'s named columns, none of them trusted: a damaged file may hold
    /// any type in any column.
    /// - Throws: ``UnreadableRow`` when a column is missing or not of its type, or `time` is
    ///   not finite.
    init(columnsOf row: Row) throws(UnreadableRow) {
        func value(_ column: Column) -> DatabaseValue { row.storedValue(column) }
        guard let messageId = String.fromDatabaseValue(value(MessageColumn.messageId)),
            let session = String.fromDatabaseValue(value(MessageColumn.session)),
            let seq = Int64.fromDatabaseValue(value(MessageColumn.seq)),
            let time = Double.fromDatabaseValue(value(MessageColumn.time)), time.isFinite,
            let result = String.fromDatabaseValue(value(MessageColumn.result))
        else { throw UnreadableRow(description: "a column is missing or of the wrong type") }
        func optionalText(_ column: Column) throws(UnreadableRow) -> String? {
            let stored = value(column)
            if stored.isNull { return nil }
            guard let text = String.fromDatabaseValue(stored) else {
                throw UnreadableRow(description: "a column is of the wrong type")
            }
            return text
        }
        self.init(
            messageId: messageId, session: session, seq: seq, time: time, task: try optionalText(MessageColumn.task),
            path: try optionalText(MessageColumn.path), event: try optionalText(MessageColumn.event), result: result)
    }
}

extension Row {
    /// What `column` holds, whatever its type; `.null` when the row has no such column.
    func storedValue(_ column: Column) -> DatabaseValue {
        let stored: DatabaseValue? = self[column]  // nil when missing or NULL
        return stored ?? .null
    }
}
