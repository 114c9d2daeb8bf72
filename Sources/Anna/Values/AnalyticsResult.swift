import CoreJS

/// Where a result came from: the task's pattern, the node's path and the event's name.
///
/// A value like any other; its three strings are kept together in one shared, immutable
/// record, so copying a result (each receiver gets one) retains one object, not three strings.
public struct ResultMeta: Sendable, Equatable, Codable {
    /// The three strings, never changed once made (a setter makes a new record).
    private final class Fields: Sendable {
        let task: String
        let path: String
        let event: String

        init(task: String, path: String, event: String) {
            self.task = task
            self.path = path
            self.event = event
        }
    }

    private var fields: Fields

    /// The pattern of the task that produced the result, e.g. `master/table/cell/did-select`.
    public var task: String {
        get { fields.task }
        set { fields = Fields(task: newValue, path: fields.path, event: fields.event) }
    }
    /// The focus path of the node the event happened on, e.g. `/master/table/cell`.
    public var path: String {
        get { fields.path }
        set { fields = Fields(task: fields.task, path: newValue, event: fields.event) }
    }
    /// The event's name, e.g. `did-select`.
    public var event: String {
        get { fields.event }
        set { fields = Fields(task: fields.task, path: fields.path, event: newValue) }
    }

    /// Creates a meta record.
    public init(task: String, path: String, event: String) {
        fields = Fields(task: task, path: path, event: event)
    }

    private enum CodingKeys: String, CodingKey {
        case task, path, event
    }

    /// Decodes `{"task": …, "path": …, "event": …}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            task: try container.decode(String.self, forKey: .task), path: try container.decode(String.self, forKey: .path),
            event: try container.decode(String.self, forKey: .event))
    }

    /// Encodes `{"task": …, "path": …, "event": …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(task, forKey: .task)
        try container.encode(path, forKey: .path)
        try container.encode(event, forKey: .event)
    }

    /// Equal when the three strings are.
    public static func == (first: ResultMeta, second: ResultMeta) -> Bool {
        first.fields === second.fields
            || (first.task == second.task && first.path == second.path && first.event == second.event)
    }
}

/// One value a task returned.
public struct AnalyticsResult: Sendable, Equatable {
    /// What the task returned.
    public var value: JSONValue {
        didSet { sourceText = nil }
    }
    /// Where it came from; `nil` when the analytics module's core does not say (older cores).
    public var meta: ResultMeta?
    /// When the event that produced it happened, in milliseconds since the epoch: the time
    /// ``Analyzer`` recorded it at in an app, the line's `time` in a replayed event stream
    /// (so a replay of last month's session stamps last month); `nil` when not known.
    public var time: Double?
    /// ``value`` as the engine wrote it, kept when a listener asked for the text
    /// (``ResultSink``); nil once ``value`` is changed.
    private var sourceText: String?

    /// Creates a result.
    public init(value: JSONValue, meta: ResultMeta? = nil, time: Double? = nil) {
        self.value = value
        self.meta = meta
        self.time = time
    }

    /// A result decoded from the engine's text, which it keeps as ``jsonText`` when given.
    /// Each field set in place: delegating to the public initializer made the optimizer
    /// build the result twice (a copy and a destroy per result).
    init(value: consuming JSONValue, text: String?, meta: ResultMeta?, time: Double?) {
        self.value = value
        self.meta = meta
        self.time = time
        sourceText = text
    }

    /// ``value`` as compact JSON text: the engine's own text when the result came from it
    /// unchanged (no second encoding), else ``value``'s `jsonText`. Either parses to ``value``.
    public var jsonText: String { sourceText ?? value.jsonText }

    /// Equal when the values, metas and times are (however the value's text was written).
    public static func == (first: AnalyticsResult, second: AnalyticsResult) -> Bool {
        first.value == second.value && first.meta == second.meta && first.time == second.time
    }
}
