import Anna
import CoreJS
import Foundation
import GRDB
import Logging
import OrderedCollections

/// A durable queue of results in an SQLite file (WAL), uploaded by an ``OutboxUploader``.
///
/// Appending never waits for the disk: results are queued in memory and written by the
/// outbox's own queue in batches (group commit). Once written they survive the process
/// being killed (``OutboxConfiguration/Durability/processKill``, the default) or a power
/// loss (``OutboxConfiguration/Durability/powerLoss``). Results stay in the file until a
/// collector accepts them; caps on rows, bytes and age drop the oldest, each drop counted.
///
/// ```swift
/// let outbox = try Outbox(path: "results.sqlite")
/// var dependency = Manager.Dependency()
/// dependency.outbox = outbox.sink()
/// let manager = Manager(moduleURL: moduleURL, dependency: dependency)
/// let uploader = try OutboxUploader(outbox: outbox, configuration: UploadConfiguration(url: "https://collect.example/batch"))
/// Task { await uploader.run() }
/// ```
public final class Outbox: Sendable {
    /// The file's path.
    public let path: String
    /// How the outbox was opened.
    public let configuration: OutboxConfiguration
    /// When the file was damaged at open: what was recovered, and where the damaged copy is.
    public let salvage: OutboxError?

    /// Who the results are about: the anonymous ID kept in the file, the user ID, the
    /// analytics session, the context and super-properties.
    public let identity: OutboxIdentity

    let store: OutboxStore
    let writer: OutboxWriter
    let onError: @Sendable (OutboxError) -> Void
    /// The session of identify calls made from Swift.
    private let callSession = Outbox.newSession()
    /// The destinations each result is appended for (one unnamed when none is configured).
    private let appendDestinations: [String]

    /// Opens the outbox at `path`, creating it when missing. A damaged file is set aside
    /// (renamed `<path>.damaged-<ms>`), what it still holds is copied into a new file, and
    /// ``salvage`` (also passed to `onError`) says what was recovered.
    /// - Parameters:
    ///   - path: The SQLite file.
    ///   - configuration: Durability, size limits and caps.
    ///   - onError: What the outbox reports when no call is there to throw to (a failed
    ///     write, drops by the caps, a salvage); by default swift-log's `anna.outbox` logger.
    /// - Throws: ``OutboxError/notAnOutbox(path:detail:)`` when the file is something else
    ///   (another SQLite database, a text file; it is left as it is),
    ///   ``OutboxError/storage(path:message:)`` when the file cannot be opened or created.
    public init(
        path: String, configuration: OutboxConfiguration = OutboxConfiguration(),
        onError: (@Sendable (OutboxError) -> Void)? = nil
    ) throws {
        let report = onError ?? { Logger(label: "anna.outbox").error("\($0)") }
        self.path = path
        self.configuration = configuration
        appendDestinations = configuration.destinations.isEmpty ? [""] : configuration.destinations
        self.onError = report
        var salvage: OutboxError?
        switch OutboxFileKind.of(path: path) {
        case let .foreign(detail): throw OutboxError.notAnOutbox(path: path, detail: detail)
        case .new where configuration.readOnly:
            throw OutboxError.notAnOutbox(path: path, detail: "empty, or an SQLite database without tables")
        case .new, .outbox: break
        }
        do {
            store = try OutboxStore(path: path, configuration: configuration)
        } catch {
            guard let detail = OutboxSalvage.damage(in: error), !configuration.readOnly else {
                throw OutboxError.storage(path: path, message: "cannot open the outbox: \(error)")
            }
            let (salvaged, summary) = try OutboxSalvage.salvage(path: path, configuration: configuration, detail: detail)
            store = salvaged
            salvage = summary
            report(summary)
        }
        self.salvage = salvage
        let writer = OutboxWriter(store: store, onError: report)
        self.writer = writer
        var stored: [String: String]
        do {
            stored = try store.identity()
            if stored[OutboxIdentity.Key.anonymousId] == nil, !configuration.readOnly {
                let made = OutboxIdentity.newAnonymousId()
                try store.save([OutboxIdentity.Key.anonymousId: made])
                stored[OutboxIdentity.Key.anonymousId] = made
            }
        } catch {
            throw OutboxError.storage(path: path, message: "cannot read or write the identity: \(error)")
        }
        identity = OutboxIdentity(stored: stored, configuration: configuration) { writer.save(identity: $0) }
    }

    /// A new random session name.
    public static func newSession() -> String {
        UUID().uuidString.lowercased()
    }

    /// A sink for ``/Anna/Manager/Dependency/outbox`` that appends every result under `session`.
    /// A message ID is the session and the result's position in it (counted from 0 by this
    /// outbox), so a replay of the same session under the same name repeats its IDs and a
    /// collector drops what it already has; a name stands for one session only. A name the
    /// file already recorded from an earlier opening is reported once to `onError`
    /// (``OutboxError/sessionReused(path:session:recorded:)``) when its first result is
    /// written, and appended to all the same.
    public func sink(session: String = Outbox.newSession()) -> OutboxSink {
        OutboxSink(outbox: self, session: session)
    }

    /// Queues `result` under `session` and returns at once.
    /// - Parameters:
    ///   - result: The result to keep until it is delivered.
    ///   - session: The session it belongs to (its results are sent in order).
    ///   - time: When the event that produced it happened (``/Anna/AnalyticsResult/time``), in
    ///     milliseconds since the epoch.
    /// - Throws: ``OutboxError/resultTooLarge(bytes:limit:task:)`` (counted under `tooLarge`),
    ///   ``OutboxError/resultTooDeep(depth:limit:task:)`` (counted under `tooDeep`),
    ///   ``OutboxError/backpressure(dropped:limit:)`` for the first result of an episode in
    ///   which the writer fell behind (each dropped result counted),
    ///   ``OutboxError/writeFailed(path:count:message:)`` for the first result refused while
    ///   writes fail, ``OutboxError/closed(path:)``, and ``OutboxError/storage(path:message:)``
    ///   for the first result when another `Outbox` appends to the same file (later results
    ///   are refused without an error, each counted in ``lostCount`` and under `writeFailed`).
    public func append(_ result: AnalyticsResult, session: String, time: Double) throws(OutboxError) {
        if configuration.readOnly { throw .storage(path: path, message: "opened read-only: the result was not kept") }
        let text = result.jsonText
        let resultBytes = text.utf8.count
        guard resultBytes <= configuration.maximumResultBytes else {
            writer.countDrop(.tooLarge)
            throw .resultTooLarge(bytes: resultBytes, limit: configuration.maximumResultBytes, task: result.meta?.task)
        }
        // Each level of nesting takes at least two bytes of JSON text (`[]` or `{}`), so a
        // shorter text cannot be too deep: most results skip the walk.
        let depth = resultBytes < 2 * WireFormat.maximumResultDepth ? 0 : WireFormat.depth(of: result.value)
        guard depth <= WireFormat.maximumResultDepth else {
            writer.countDrop(.tooDeep)
            throw .resultTooDeep(depth: depth, limit: WireFormat.maximumResultDepth, task: result.meta?.task)
        }
        let appendedAt = Date().timeIntervalSince1970
        let envelope = identity.stamp(time: time, identifying: Self.identifiedUser(result.value, text: text))
        // Each string read once: every read of a meta field or of the configuration's
        // destinations is a retain and a release, and this runs for every result.
        let task = result.meta?.task
        let path = result.meta?.path
        let event = result.meta?.event
        // The message ID repeats the session and adds up to 20 digits.
        let bytes =
            WireFormat.messageOverheadBytes + 2 * session.utf8.count + 20 + resultBytes + (task?.utf8.count ?? 0)
            + (path?.utf8.count ?? 0) + (event?.utf8.count ?? 0)
        let refusal = writer.append(
            session: session, destinations: appendDestinations, envelope: envelope, appendedAt: appendedAt, bytes: bytes
        ) { seq, group in
            group.append(seq: seq, time: time, task: task, path: path, event: event, result: text, bytes: bytes, appendedAt: appendedAt)
        }
        if let refusal { throw refusal }
    }

    /// The user ID an identify result sets (``/Anna/AnalyticsCall``'s rule), nil for any other.
    /// `text` is the value's JSON text, in which neither encoder (JavaScript's nor
    /// ``/CoreJS/JSONValue/jsonText``) escapes a letter: a text without `identify` in it is
    /// not one, and most results are told by that scan alone, without looking members up.
    static func identifiedUser(_ value: JSONValue, text: String) -> String? {
        // A text without contiguous UTF-8 (a bridged one) is looked up without the scan.
        guard text.utf8.withContiguousStorageIfAvailable(mentionsIdentify) ?? true, case let .object(members) = value,
            members["type"]?.stringValue == "identify"
        else { return nil }
        return members["userId"]?.stringValue
    }

    /// Whether `bytes` hold `identify`.
    private static func mentionsIdentify(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let identify: StaticString = "identify"
        return identify.withUTF8Buffer { word in
            guard bytes.count >= word.count else { return false }
            for start in 0...(bytes.count - word.count) where bytes[start] == word[0] {
                if (1..<word.count).allSatisfy({ bytes[start + $0] == word[$0] }) { return true }
            }
            return false
        }
    }

    /// Sets the user ID and queues an identify call with `traits` for every destination (as a
    /// task's `identify(userId, traits)` does), stamped now.
    /// - Throws: What ``append(_:session:time:)`` throws.
    public func identify(userId: String, traits: OrderedDictionary<String, JSONValue> = [:]) throws(OutboxError) {
        let value: JSONValue = ["type": "identify", "userId": .string(userId), "traits": .object(traits)]
        try append(AnalyticsResult(value: value), session: callSession, time: (Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// Waits until every result appended so far is written to the file, or until `deadline`,
    /// or until a write fails (a full disk does not empty itself); safe on any thread (an
    /// `atexit` handler on the main thread included).
    /// - Returns: How many appended results are not written (lost if the process ends now).
    public func drain(before deadline: ContinuousClock.Instant) -> Int {
        if configuration.readOnly { return 0 }
        return writer.drain(before: deadline)
    }

    /// Results appended to this outbox that never reached the file: refused while writes
    /// failed (disk full), or still unwritten at ``close()``. Counted under
    /// `dropped.writeFailed` too, in the file once a write succeeds.
    public var lostCount: Int { writer.lostCount }

    /// Waits until every result appended before is written to the file.
    public func waitUntilWritten() async {
        await writer.written()
    }

    /// Blocks until every result appended before is written to the file.
    public func synchronize() {
        writer.synchronize()
    }

    /// The counts: waiting, in flight, dead letters, drops by reason, the oldest's age.
    /// - Throws: ``OutboxError/storage(path:message:)`` when the file cannot be read.
    public func stats() throws(OutboxError) -> OutboxStats {
        var stats: OutboxStats
        do {
            stats = try store.stats(now: Date().timeIntervalSince1970)
        } catch {
            throw .storage(path: path, message: "cannot read the stats: \(error)")
        }
        stats.pending += writer.unwrittenCount
        for name in configuration.destinations {
            let unwritten = writer.unwrittenCount(destination: name)
            if unwritten > 0 { stats.destinations[name, default: DestinationStats()].pending += unwritten }
        }
        for (reason, count) in writer.unwrittenDrops { stats.dropped[reason.rawValue, default: 0] += count }
        return stats
    }

    /// The results set aside, oldest first.
    public func deadLetters() throws(OutboxError) -> [DeadLetter] {
        do { return try store.deadLetters() } catch {
            throw .storage(path: path, message: "cannot read the dead letters: \(error)")
        }
    }

    /// Moves the dead letters back to the end of the queue (IDs unchanged, so a collector
    /// that did take one drops the copy); returns how many moved and how many stay
    /// (unreadable ones, which no retry can send).
    public func requeueDeadLetters() throws(OutboxError) -> (requeued: Int, kept: Int) {
        do { return try store.requeueDeadLetters(now: Date().timeIntervalSince1970) } catch {
            throw .storage(path: path, message: "cannot requeue the dead letters: \(error)")
        }
    }

    /// Deletes everything the file holds of users' data: the results appended before the call
    /// (written first), waiting or in flight, the dead letters and the drop counts; then
    /// compacts the file, so the deleted bytes are gone from the disk too. The session names
    /// and their counters stay: a later result of a session keeps its place, so no message ID
    /// is used twice. The identity goes too: a new anonymous ID, no user ID
    /// (``OutboxIdentity/reset()``). A recording (`Manager.Dependency.recordingURL`) is the
    /// app's file to delete.
    /// - Returns: How many results and dead letters were deleted.
    /// - Throws: ``OutboxError/storage(path:message:)`` when the file cannot be changed.
    @discardableResult
    public func deleteAll() throws(OutboxError) -> Int {
        writer.synchronize()
        let deleted: Int
        do { deleted = try store.deleteAll() } catch {
            throw .storage(path: path, message: "cannot delete the stored results: \(error)")
        }
        identity.reset()
        writer.synchronize()
        return deleted
    }

    /// Writes what is queued, refuses further appends and closes the file (folding the
    /// write-ahead log into it).
    public func close() {
        if !configuration.readOnly { writer.close() }
        do {
            try store.database.close()
        } catch {
            onError(.storage(path: path, message: "closing the file failed: \(error)"))
        }
    }
}

/// Appends a manager's results to an ``Outbox`` under one session (``/Anna/Manager/Dependency/outbox``).
public struct OutboxSink: ResultSink {
    /// The outbox appended to.
    public let outbox: Outbox
    /// The session every result is appended under.
    public let session: String
    /// The outbox: managers sharing one outbox drain it once at exit.
    public var drainIdentity: ObjectIdentifier? { ObjectIdentifier(outbox) }

    /// Appends `result`; see ``Outbox/append(_:session:time:)``.
    public func append(_ result: AnalyticsResult, time: Double) throws {
        try outbox.append(result, session: session, time: time)
    }

    /// Waits until every result appended to the outbox is written, or until `deadline`; see
    /// ``Outbox/drain(before:)``.
    public func drain(before deadline: ContinuousClock.Instant) -> Int {
        outbox.drain(before: deadline)
    }
}
