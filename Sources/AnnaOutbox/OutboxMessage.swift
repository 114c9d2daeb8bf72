/// One result as the outbox keeps it, sends it, and a collector receives it
/// (``WireFormat/encode(_:sentAt:)``, ``WireFormat/decode(_:)``).
public struct OutboxMessage: Sendable, Equatable {
    /// Unique and deterministic: ``MessageID/make(session:seq:)``, so a replayed session
    /// produces the same IDs and the collector drops the duplicates.
    public var messageId: String
    /// The session the result belongs to (one ``Outbox/sink(session:)`` each).
    public var session: String
    /// The result's position in its session, from 0.
    public var seq: Int64
    /// When the event that produced the result happened (``/Anna/AnalyticsResult/time``, or the
    /// append time when it had none), in milliseconds since the epoch (sent as ISO 8601 to the
    /// millisecond, so a received message has a whole number).
    public var time: Double
    /// The task's pattern, when the core names it.
    public var task: String?
    /// The node's focus path, when the core names it.
    public var path: String?
    /// The event's name, when the core names it.
    public var event: String?
    /// The result as JSON text.
    public var result: String

    /// A message with every field given.
    public init(
        messageId: String, session: String, seq: Int64, time: Double, task: String?, path: String?, event: String?,
        result: String
    ) {
        self.messageId = messageId
        self.session = session
        self.seq = seq
        self.time = time
        self.task = task
        self.path = path
        self.event = event
        self.result = result
    }

    /// A checksum over every field (64-bit FNV-1a), stored beside the row so a row whose bytes
    /// changed on disk is noticed rather than sent.
    var checksum: Int64 { checksum(destination: "", envelope: nil) }

    /// The checksum of the message kept for `destination` with the envelope row `envelope`:
    /// for the default destination without an envelope, ``checksum`` (what rows written
    /// before destinations existed hold).
    func checksum(destination: String, envelope: Int64?) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String?) {
            guard let text else {
                hash = (hash ^ 0xff) &* 0x100_0000_01b3
                return
            }
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            hash = (hash ^ 0) &* 0x100_0000_01b3
        }
        mix(messageId)
        mix(session)
        mix(String(seq))
        mix(String(time.bitPattern))
        mix(task)
        mix(path)
        mix(event)
        mix(result)
        if !destination.isEmpty || envelope != nil {
            mix(destination)
            mix(envelope.map { String($0) })
        }
        return Int64(bitPattern: hash)
    }
}

/// How a message's ID is made from its session and sequence number.
public enum MessageID {
    /// `<session>#<seq>`: readable, collision-free (the sequence number is everything after
    /// the last `#`), and the same each time a session is replayed.
    public static func make(session: String, seq: Int64) -> String {
        "\(session)#\(seq)"
    }
}
