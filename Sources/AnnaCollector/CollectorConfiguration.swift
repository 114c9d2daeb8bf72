/// Where a ``Collector`` listens, where it stores, and the failures it injects.
public struct CollectorConfiguration: Sendable {
    /// The address listened on; loopback by default.
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one (``Collector/start()`` returns it).
    public var port = 0
    /// The SQLite file results are stored in (deduplicated by message ID).
    public var storePath: String
    /// Failures injected before a batch is looked at.
    public var failures = FailureInjection()
    /// How long a connection may take to send a whole request head (from its opening, or from
    /// the end of its last answer), and how long it may send nothing in the middle of a body,
    /// before the collector closes it.
    public var idleTimeout: Duration = .seconds(10)
    /// The most connections served at once; beyond it, new ones wait in the listen queue until
    /// one closes. `nil`: `ConnectionCap.default` (derived from the file-descriptor limit).
    public var maximumConnections: Int?
    /// Called (once, with the cap) the first time ``maximumConnections`` connections are open at
    /// once (`anna collect` prints a line).
    public var onConnectionCapReached: (@Sendable (Int) -> Void)?

    /// A collector storing into `storePath`.
    public init(storePath: String, port: Int = 0) {
        self.storePath = storePath
        self.port = port
    }
}

/// Failures a ``Collector`` injects, so an uploader's behaviour can be shown by hand and tested.
/// Checked in this order for each request (numbered from 1): delay, dropped connection,
/// failure status, malformed body, size limit, rejected content.
public struct FailureInjection: Sendable, Equatable {
    /// Answer the first ``failCount`` requests with this status (none when `nil`).
    public var failStatus: Int?
    /// How many requests ``failStatus`` answers; negative: all of them.
    public var failCount = 1
    /// A `Retry-After` value sent with injected failures (seconds or an HTTP date).
    public var retryAfter: String?
    /// How long to wait before answering each request.
    public var delay: Duration = .zero
    /// Every n-th request has its connection dropped mid-answer, the batch not stored (0: never).
    public var dropConnectionEvery = 0
    /// Refuse a batch in which a result's JSON text contains this text (a poison result).
    public var rejectMessageContaining: String?
    /// The status of such a refusal (400 or 422).
    public var rejectStatus = 400
    /// Answer 413 to a body over this many bytes (after decompression).
    public var maximumBodyBytes: Int?

    /// No failures.
    public init() {}
}
