/// Results appended and not yet written, kept as they will be stored: one future row of
/// `messageGroup` (``MessageGroup``), its entries already encoded (``BlobWriter``). An
/// append copies the result's bytes into the group of its destination; the writer takes
/// whole groups. No per-result object is made, kept or freed on the way to the file.
struct PendingGroup: Sendable {
    let destination: String
    let session: String
    /// The identity and context its results were stamped with.
    let envelope: StampedEnvelope?
    /// When its first result was appended (the age cap's clock).
    let appendedAt: Double
    /// Its results, their estimated bytes on the wire, and their encoded entries.
    private(set) var count = 0
    private(set) var bytes = 0
    let blob = GroupBytes()
    /// The position of its first result in the session, and one past its last.
    private(set) var firstSeq: Int64 = 0
    private(set) var nextSeq: Int64 = 0
    /// The time of its last result.
    private(set) var lastTime: Double = 0

    init(destination: String, session: String, envelope: StampedEnvelope?, appendedAt: Double) {
        self.destination = destination
        self.session = session
        self.envelope = envelope
        self.appendedAt = appendedAt
    }

    /// Whether a result of `session` for `destination` stamped with `envelope` goes in this group.
    func takes(destination: String, session: String, envelope: StampedEnvelope?) -> Bool {
        count < MessageGroup.appendedCount && blob.count < MessageGroup.maximumBlobBytes && envelope === self.envelope
            && destination == self.destination && session == self.session
    }

    /// Appends one result.
    mutating func append(
        seq: Int64, time: Double, task: String?, path: String?, event: String?, result: String, givenMessageId: String? = nil,
        bytes: Int, appendedAt: Double
    ) {
        if count == 0 { firstSeq = seq }
        BlobWriter.appendEntry(
            index: count, seq: seq, time: time, appendedAt: appendedAt, bytes: bytes, messageId: givenMessageId, task: task, path: path,
            event: event, result: result, to: blob)
        count += 1
        self.bytes += bytes
        nextSeq = max(nextSeq, seq + 1)
        lastTime = time
    }

    /// `entries` in groups, in order (a salvage, a test).
    static func groups(of entries: [OutboxStore.Entry]) -> [PendingGroup] {
        var groups: [PendingGroup] = []
        for entry in entries {
            if groups.last?.takes(destination: entry.destination, session: entry.session, envelope: entry.envelope) != true {
                groups.append(
                    PendingGroup(
                        destination: entry.destination, session: entry.session, envelope: entry.envelope,
                        appendedAt: entry.appendedAt))
            }
            groups[groups.count - 1].append(
                seq: entry.seq, time: entry.time, task: entry.task, path: entry.path, event: entry.event, result: entry.result,
                givenMessageId: entry.givenMessageId, bytes: entry.bytes, appendedAt: entry.appendedAt)
        }
        return groups
    }
}
