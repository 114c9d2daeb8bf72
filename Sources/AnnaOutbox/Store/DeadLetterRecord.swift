import CoreJS
import GRDB

/// A row of the `deadLetter` table: a message's columns (``MessageColumn``) and why it was set
/// aside. Written whole; read without trusting a column's type (a damaged file may hold
/// anything), each column nil when it is not of its type.
struct DeadLetterRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "deadLetter"
    static let id = Column("id")
    static let status = Column("status")
    static let responseBody = Column("responseBody")
    static let reason = Column("reason")
    static let deadAt = Column("deadAt")
    static let destination = Column("destination")
    static let envelope = Column("envelope")

    /// The row's key (nil until inserted).
    var id: Int64?
    /// The message's columns (``MessageColumn``) and the reason's, as stored.
    var messageId, session, task, path, event, result, responseBody, reason: String?
    var seq: Int64?
    /// The message's time (ms), and when it was set aside (seconds since the epoch).
    var time, deadAt: Double?
    /// The HTTP status that refused it; 0 when the outbox set it aside itself.
    var status: Int?
    /// The destination that refused it (`''`: the default one), and its envelope's row.
    var destination: String? = ""
    var envelope: Int64?

    /// `message`, or an unreadable row's placeholders (an empty ID and result, position -1,
    /// time 0), set aside with `status`, `responseBody` and `reason` at `deadAt`.
    init(_ message: OutboxMessage?, status: Int, responseBody: String, reason: String, deadAt: Double) {
        (messageId, session, seq, time) = (message?.messageId ?? "", message?.session ?? "", message?.seq ?? -1, message?.time ?? 0)
        (task, path, event, result) = (message?.task, message?.path, message?.event, message?.result ?? "")
        (self.status, self.responseBody, self.reason, self.deadAt) = (status, responseBody, reason, deadAt)
    }

    init(row: Row) {
        func text(_ column: Column) -> String? { String.fromDatabaseValue(row.storedValue(column)) }
        (messageId, session, result) = (text(MessageColumn.messageId), text(MessageColumn.session), text(MessageColumn.result))
        (task, path, event) = (text(MessageColumn.task), text(MessageColumn.path), text(MessageColumn.event))
        (responseBody, reason) = (text(Self.responseBody), text(Self.reason))
        (id, seq) = (Int64.fromDatabaseValue(row.storedValue(Self.id)), Int64.fromDatabaseValue(row.storedValue(MessageColumn.seq)))
        time = Double.fromDatabaseValue(row.storedValue(MessageColumn.time))
        deadAt = Double.fromDatabaseValue(row.storedValue(Self.deadAt))
        status = Int.fromDatabaseValue(row.storedValue(Self.status))
        destination = String.fromDatabaseValue(row.storedValue(Self.destination))
        envelope = Int64.fromDatabaseValue(row.storedValue(Self.envelope))
    }

    func encode(to container: inout PersistenceContainer) {
        let values: [(Column, (any DatabaseValueConvertible)?)] = [
            (Self.id, id), (MessageColumn.messageId, messageId), (MessageColumn.session, session), (MessageColumn.seq, seq),
            (MessageColumn.time, time), (MessageColumn.task, task), (MessageColumn.path, path), (MessageColumn.event, event),
            (MessageColumn.result, result), (Self.status, status), (Self.responseBody, responseBody), (Self.reason, reason),
            (Self.deadAt, deadAt), (Self.destination, destination ?? ""), (Self.envelope, envelope),
        ]
        for (column, value) in values { container[column] = value }
    }

    /// The message to send again: nil unless it has an ID, its other columns their types, and
    /// a result that is JSON (a task, path or event not of its type is read as absent).
    var requeueable: OutboxMessage? {
        guard let messageId, !messageId.isEmpty, let session, let seq, let time, let result,
            (try? JSONValue(parsing: result)) != nil  // not JSON: kept, and counted as kept
        else { return nil }
        return OutboxMessage(
            messageId: messageId, session: session, seq: seq, time: time, task: task, path: path, event: event,
            result: result)
    }

    /// The public view, a column not of its type read as empty (-1 for the position).
    var deadLetter: DeadLetter {
        DeadLetter(
            messageId: messageId ?? "", session: session ?? "", seq: seq ?? -1, task: task, path: path, event: event,
            result: result ?? "", status: status ?? 0, responseBody: responseBody ?? "", reason: reason ?? "",
            deadAt: deadAt ?? 0, destination: destination ?? "")
    }
}
