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

    /// The row's key (nil until inserted).
    var id: Int64?
    var messageId: String?
    var session: String?
    var seq: Int64?
    var time: Double?
    var task: String?
    var path: String?
    var event: String?
    var result: String?
    /// The HTTP status that refused it; 0 when the outbox set it aside itself.
    var status: Int?
    var responseBody: String?
    var reason: String?
    /// When, in seconds since the epoch.
    var deadAt: Double?

    /// `message`, or an unreadable row's placeholders (an empty ID and result, position -1,
    /// time 0), set aside with `status`, `responseBody` and `reason` at `deadAt`.
    init(_ message: OutboxMessage?, status: Int, responseBody: String, reason: String, deadAt: Double) {
        messageId = message?.messageId ?? ""
        session = message?.session ?? ""
        seq = message?.seq ?? -1
        time = message?.time ?? 0
        task = message?.task
        path = message?.path
        event = message?.event
        result = message?.result ?? ""
        self.status = status
        self.responseBody = responseBody
        self.reason = reason
        self.deadAt = deadAt
    }

    init(row: Row) {
        func text(_ column: Column) -> String? { String.fromDatabaseValue(row.storedValue(column)) }
        id = Int64.fromDatabaseValue(row.storedValue(Self.id))
        messageId = text(MessageColumn.messageId)
        session = text(MessageColumn.session)
        seq = Int64.fromDatabaseValue(row.storedValue(MessageColumn.seq))
        time = Double.fromDatabaseValue(row.storedValue(MessageColumn.time))
        task = text(MessageColumn.task)
        path = text(MessageColumn.path)
        event = text(MessageColumn.event)
        result = text(MessageColumn.result)
        status = Int.fromDatabaseValue(row.storedValue(Self.status))
        responseBody = text(Self.responseBody)
        reason = text(Self.reason)
        deadAt = Double.fromDatabaseValue(row.storedValue(Self.deadAt))
    }

    func encode(to container: inout PersistenceContainer) {
        container[Self.id] = id
        container[MessageColumn.messageId] = messageId
        container[MessageColumn.session] = session
        container[MessageColumn.seq] = seq
        container[MessageColumn.time] = time
        container[MessageColumn.task] = task
        container[MessageColumn.path] = path
        container[MessageColumn.event] = event
        container[MessageColumn.result] = result
        container[Self.status] = status
        container[Self.responseBody] = responseBody
        container[Self.reason] = reason
        container[Self.deadAt] = deadAt
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
            deadAt: deadAt ?? 0)
    }
}
