import CoreJS

/// What can go wrong with an ``Outbox`` or its uploader, each with what to do about it.
public enum OutboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A result's JSON is over the size limit; it was not kept.
    case resultTooLarge(bytes: Int, limit: Int, task: String?)
    /// Results were dropped because the writer fell too far behind (counted under `backpressure`).
    case backpressure(dropped: Int, limit: Int)
    /// The outbox was closed; nothing more is appended.
    case closed(path: String)
    /// The outbox file could not be opened or written.
    case storage(path: String, message: String)
    /// The file was damaged: what could be read was kept, the damaged file set aside.
    case salvaged(path: String, damagedCopy: String, recovered: Int, unreadable: Int, detail: String)
    /// Rows that failed their checksum or could not be decoded were set aside as dead letters.
    case unreadableRows(path: String, count: Int)
    /// Stored results were damaged on disk beyond reading (not even as dead letters): counted
    /// under `corrupt`, `count` of them this time.
    case unreadableLost(path: String, count: Int)
    /// Results were set aside because the server refused them (a 400, 413 or 422 on one result).
    case refused(status: Int, messageIds: [String], body: String)
    /// The collector answered with a status that retrying will not fix by itself (401, 403, 404, …).
    case rejectedByServer(status: Int, url: String, body: String)
    /// The upload URL is not a usable http(s) URL.
    case invalidURL(String)
    /// The collector refused every result of a batch alike (same status, same answer): it
    /// does not take this format, or the URL is not a collector's. The results are kept.
    case formatRefused(status: Int, url: String, body: String)
    /// The collector could not be reached (the first failure of an outage; later ones are
    /// retried without a word until an answer comes).
    case unreachable(url: String, reason: String)
    /// Refused results could not be set aside: the dead-letter table is at its cap.
    case deadLetterCapReached(path: String, dropped: Int, limit: Int)
    /// The file is not an outbox (another SQLite database, or not SQLite at all); it was not changed.
    case notAnOutbox(path: String, detail: String)
    /// Results could not be written to the file (disk full, a file size limit, permissions).
    case writeFailed(path: String, count: Int, message: String)
    /// A result nests arrays and objects deeper than the wire format allows; it was not kept.
    case resultTooDeep(depth: Int, limit: Int, task: String?)
    /// An `Outbox` began appending under a session name the file already recorded from an
    /// earlier opening (`recorded` positions): numbering starts from 0 again, so the message
    /// IDs repeat and a collector that drops duplicates drops this run's first `recorded`
    /// results. Reported once per session per opening; the results are appended all the same
    /// (a replay of the same session relies on it).
    case sessionReused(path: String, session: String, recorded: Int)
    /// The destination refused the key or token (401, 403, or Amplitude's "Invalid API key"):
    /// its uploader stopped, the results are kept for a run with the right key.
    case unauthorized(status: Int, url: String, body: String)
    /// Results could not be put in the destination's format (larger than its per-event cap,
    /// an ID too short for Amplitude): set aside as dead letters, `count` of them this time.
    case unsendable(url: String, reason: String, count: Int)
    /// An uploader was given a destination the outbox does not queue results for.
    case unknownDestination(name: String, known: [String])

    /// The message, with what to do.
    public var description: String {
        switch self {
        case let .resultTooLarge(bytes, limit, task):
            return
                "outbox: a result of \(bytes) bytes\(task.map { " from task \($0)" } ?? "") is over the limit of \(limit) bytes and was not kept: return less from the task, or raise OutboxConfiguration.maximumResultBytes"
        case let .backpressure(dropped, limit):
            return
                "outbox: \(Plural.count(dropped, "result")) dropped because more than \(limit) bytes were waiting to be written: the disk is slower than the results arrive (counted under dropped.backpressure)"
        case let .closed(path):
            return "outbox \(path): closed, the result was not kept"
        case let .storage(path, message):
            return "outbox \(path): \(message)"
        case let .salvaged(path, damagedCopy, recovered, unreadable, detail):
            return
                "outbox \(path): the file was damaged (\(detail)); \(Plural.count(recovered, "result")) recovered, \(unreadable) unreadable; the damaged file is kept as \(damagedCopy)"
        case let .unreadableLost(path, count):
            return
                "outbox \(path): \(Plural.count(count, "stored result")) damaged on disk beyond reading and lost (counted under dropped.corrupt in anna outbox stats): the file or the disk is failing"
        case let .unreadableRows(path, count):
            return
                "outbox \(path): \(Plural.count(count, "stored result")) failed the checksum or could not be decoded; set aside as dead letters (anna outbox dead \(path))"
        case let .refused(status, messageIds, body):
            return
                "outbox: the server refused \(messageIds.count == 1 ? "result \(messageIds[0])" : "\(messageIds.count) results") with status \(status) (\(body.prefix(200))); set aside as a dead letter (anna outbox dead FILE --requeue sends it again)"
        case let .rejectedByServer(status, url, body):
            return
                "outbox: \(url) answered \(status) (\(body.prefix(200))); results are kept and retried with back-off: check the URL and the token"
        case let .invalidURL(url):
            return "outbox: \(url) is not an http:// or https:// URL"
        case let .formatRefused(status, url, body):
            return
                "outbox: \(url) refuses every result alike with status \(status) (\(body.prefix(200))): the endpoint does not take this format; the results are kept: check that the URL is an Anna collector's"
        case let .unreachable(url, reason):
            return "outbox: cannot reach \(url): \(reason); the results are kept and retried with back-off"
        case let .deadLetterCapReached(path, dropped, limit):
            return
                "outbox \(path): the dead letters are at their cap of \(limit), so \(Plural.count(dropped, "refused result")) could not be set aside and \(dropped == 1 ? "was" : "were") dropped (counted under dropped.deadLetterCap): look at them with anna outbox dead \(path), requeue or raise OutboxConfiguration.maximumDeadLetters"
        case let .notAnOutbox(path, detail):
            return "\(path): not an outbox file (\(detail)); it was not changed: give the file anna run --outbox wrote"
        case let .writeFailed(path, count, message):
            return
                "outbox \(path): \(Plural.count(count, "result")) could not be written (\(message)) and \(count == 1 ? "is" : "are") lost, counted under dropped.writeFailed: free disk space or check the file's permissions"
        case let .resultTooDeep(depth, limit, task):
            return
                "outbox: a result nested \(depth) levels deep\(task.map { " from task \($0)" } ?? "") is over the limit of \(limit) levels and was not kept (a collector parses at most \(WireFormat.maximumDepth) levels per body): return a flatter value"
        case let .sessionReused(path, session, recorded):
            return
                "outbox \(path): session '\(session)' already has \(Plural.count(recorded, "result")) in this file from an earlier run (\(session)#0 to \(session)#\(recorded - 1), delivered or not): this run numbers its results from \(session)#0 again, repeating their message IDs, so a collector that drops duplicates keeps only this run's results from \(session)#\(recorded) on; give each run its own session (Outbox.newSession(), the default; anna run without --session) unless this is a replay of the same session"
        case let .unauthorized(status, url, body):
            return
                "outbox: \(status) \(status == 403 ? "Forbidden" : status == 401 ? "Unauthorized" : "Invalid API key") from \(url) (\(body.prefix(200))): check --api-key (UploadConfiguration.apiKey); delivery to it stopped, the results are kept for the next run"
        case let .unknownDestination(name, known):
            return
                "outbox: no destination named '\(name)' (the outbox queues for \(known.map { $0.isEmpty ? "the default one" : "'\($0)'" }.joined(separator: ", "))): name one of OutboxConfiguration.destinations"
        case let .unsendable(url, reason, count):
            return
                "outbox: \(Plural.count(count, "result")) for \(url) set aside as dead letters: \(reason) (anna outbox dead FILE)"
        }
    }
}
