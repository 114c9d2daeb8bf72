import CoreJS

/// Where a result came from: the task's pattern, the node's path and the event's name.
public struct ResultMeta: Sendable, Equatable, Codable {
    /// The pattern of the task that produced the result, e.g. `master/table/cell/did-select`.
    public var task: String
    /// The focus path of the node the event happened on, e.g. `/master/table/cell`.
    public var path: String
    /// The event's name, e.g. `did-select`.
    public var event: String

    /// Creates a meta record.
    public init(task: String, path: String, event: String) {
        self.task = task
        self.path = path
        self.event = event
    }
}

/// One value a task returned.
public struct AnalyticsResult: Sendable, Equatable {
    /// What the task returned.
    public var value: JSONValue
    /// Where it came from; `nil` when the analytics module's core does not say (older cores).
    public var meta: ResultMeta?
    /// When the event that produced it happened, in milliseconds since the epoch: the time
    /// ``Analyzer`` recorded it at in an app, the line's `time` in a replayed event stream
    /// (so a replay of last month's session stamps last month); `nil` when not known.
    public var time: Double?

    /// Creates a result.
    public init(value: JSONValue, meta: ResultMeta? = nil, time: Double? = nil) {
        self.value = value
        self.meta = meta
        self.time = time
    }
}
