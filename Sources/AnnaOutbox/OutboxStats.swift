/// How many results an outbox holds and has dropped (`anna outbox stats`).
public struct OutboxStats: Sendable, Equatable, Codable {
    /// Results waiting to be sent (not in the request under way): one per destination each
    /// result is queued for.
    public var pending: Int
    /// Results in the request under way.
    public var inFlight: Int
    /// Results set aside (refused by the server, or unreadable).
    public var deadLetter: Int
    /// Results dropped, by ``DropReason`` raw value (only reasons that happened).
    public var dropped: [String: Int]
    /// How long the oldest waiting result has waited, in seconds (0 when none waits).
    public var oldestAgeSeconds: Double
    /// Each destination's share, by name (`""`: the default destination), for every
    /// destination with a result waiting or set aside.
    public var destinations: [String: DestinationStats] = [:]

    /// Stats with every figure given.
    public init(
        pending: Int, inFlight: Int, deadLetter: Int, dropped: [String: Int], oldestAgeSeconds: Double,
        destinations: [String: DestinationStats] = [:]
    ) {
        self.pending = pending
        self.inFlight = inFlight
        self.deadLetter = deadLetter
        self.dropped = dropped
        self.oldestAgeSeconds = oldestAgeSeconds
        self.destinations = destinations
    }
}

/// One destination's results in an outbox: its own queue.
public struct DestinationStats: Sendable, Equatable, Codable {
    /// Results waiting for it (not in its request under way).
    public var pending = 0
    /// Results in its request under way.
    public var inFlight = 0
    /// Results it refused, set aside.
    public var deadLetter = 0
    /// How long its oldest waiting result has waited, in seconds.
    public var oldestAgeSeconds: Double = 0

    /// Stats with every figure given.
    public init(pending: Int = 0, inFlight: Int = 0, deadLetter: Int = 0, oldestAgeSeconds: Double = 0) {
        self.pending = pending
        self.inFlight = inFlight
        self.deadLetter = deadLetter
        self.oldestAgeSeconds = oldestAgeSeconds
    }
}

/// A result set aside, with why.
public struct DeadLetter: Sendable, Equatable {
    /// The message's ID.
    public var messageId: String
    /// Its session.
    public var session: String
    /// Its sequence number in the session.
    public var seq: Int64
    /// The task's pattern, when known.
    public var task: String?
    /// The node's path, when known.
    public var path: String?
    /// The event's name, when known.
    public var event: String?
    /// The result as JSON text (empty when unreadable).
    public var result: String
    /// The HTTP status that refused it; 0 when the outbox set it aside itself (unreadable).
    public var status: Int
    /// The start of the server's response body.
    public var responseBody: String
    /// Why it was set aside, in words.
    public var reason: String
    /// When, in seconds since the epoch.
    public var deadAt: Double
    /// The destination that refused it (`""`: the default one).
    public var destination: String = ""
}
