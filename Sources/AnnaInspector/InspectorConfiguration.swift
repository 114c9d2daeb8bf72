/// How an ``Inspector`` keeps what it sees and where it listens.
public struct InspectorConfiguration: Sendable {
    /// The address to listen on; the loopback interface by default. Any other address needs
    /// a ``token``.
    public var host = "127.0.0.1"
    /// The port (0: any free one; the server says which).
    public var port = 0
    /// The token clients send (`Authorization: Bearer T`, or `?token=T` for the page and its
    /// event stream). Required for any address beyond loopback; with one, every request but
    /// those for the page's files needs it. An empty token is refused.
    public var token: String?
    /// The most results kept and served.
    public var resultLimit = 500
    /// The most errors kept and served.
    public var errorLimit = 200
    /// How often the event stream sends what changed.
    public var tick: Duration = .milliseconds(100)
    /// How long a connection may take to send a whole request head (from its opening, or from
    /// the end of its last answer), and how long it may send nothing in the middle of a body,
    /// before the server closes it. An answer being written (the event stream) is not idle.
    public var idleTimeout: Duration = .seconds(10)
    /// The most connections served at once; beyond it, new ones wait in the listen queue until
    /// one closes. `nil`: `ConnectionCap.default` (derived from the file-descriptor limit).
    public var maximumConnections: Int?
    /// Called (once, with the cap) the first time ``maximumConnections`` connections are open at
    /// once, so a person who waits on a page knows why (`anna inspect` prints a line).
    public var onConnectionCapReached: (@Sendable (Int) -> Void)?
    /// Named counters of an outbox (or any other sink) to show among the figures, read once
    /// per tick of the figures; e.g. for the `AnnaOutbox` library's outbox:
    /// `{ let s = try outbox.stats(); return ["pending": s.pending, "inFlight": s.inFlight, "deadLetter": s.deadLetter] }`.
    public var outboxCounters: (@Sendable () throws -> [String: Int])?

    /// The defaults: 127.0.0.1, any free port, no token, 500 results.
    public init(host: String = "127.0.0.1", port: Int = 0, token: String? = nil) {
        self.host = host
        self.port = port
        self.token = token
    }

    /// Whether `host` is a loopback address (or name).
    var isLoopback: Bool { LoopbackHost.isLoopback(host) }
}
