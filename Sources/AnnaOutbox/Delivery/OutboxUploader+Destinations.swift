import CoreJS
import Foundation
import OrderedCollections

/// What a vendor's destination adds to the pipeline: batching by `flushAt` and
/// `flushInterval`, each result put in the vendor's format before it is sent, and the answers
/// that stop delivery (a refused key) or set aside only some of a batch (Amplitude).
extension OutboxUploader {
    /// Whether fewer than `flushAt` results have waited ``UploadConfiguration/flushInterval``
    /// (counted from when ``run()`` first saw them).
    func waitedLongEnough() -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let since = state.waitingSince else {
                state.waitingSince = now
                return configuration.flushInterval <= .zero
            }
            return now - since >= configuration.flushInterval
        }
    }

    /// Puts each readable result of `batch` in the destination's format; a result that cannot
    /// be (too large for the vendor, an ID too short) is set aside as a dead letter, each
    /// reason said once, and taken out of the batch.
    func encode(_ batch: inout [OutboxStore.Stored]) throws {
        var unsendable: [(item: OutboxStore.Stored, refusal: DestinationEncoder.Refusal)] = []
        for index in batch.indices where batch[index].defect == nil {
            guard let message = batch[index].message else { continue }
            let envelope: Envelope
            if let id = batch[index].envelope {
                do { envelope = try outbox.store.envelope(id: id) } catch {
                    batch[index].defect = "\(error)"  // set aside with the unreadable rows
                    continue
                }
            } else {
                envelope = outbox.identity.unstamped  // appended before identities were kept
            }
            do {
                batch[index].encoded = try encoder.event(message, envelope: envelope)
            } catch {
                unsendable.append((batch[index], error))
            }
        }
        guard !unsendable.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        // Each kind of refusal is said once per uploader; each dead letter keeps its own reason.
        for (kind, items) in OrderedDictionary(grouping: unsendable, by: \.refusal.kind) {
            var dropped = 0
            for (item, refusal) in items {
                dropped += try outbox.store.deadLetter([item], status: 0, body: "", reason: refusal.reason, now: now)
            }
            let reason = items[0].refusal.reason
            state.withLock { state in
                state.tally.deadLettered += items.count - dropped
                state.tally.lastSetAside = reason
            }
            let first = state.withLock { $0.unsendableReported.insert(kind).inserted }
            if first { outbox.onError(.unsendable(url: configuration.url, reason: reason, count: items.count)) }
            reportDeadLetterCap(dropped)
        }
        let setAside = Set(unsendable.map(\.item.id))
        batch.removeAll { setAside.contains($0.id) }
    }

    /// The error when `response` refuses the key: 401, 403, or Amplitude's 400 "Invalid API key".
    func unauthorized(_ response: UploadResponse) -> OutboxError? {
        let refused =
            response.status == 401 || response.status == 403
            || (configuration.format == .amplitude && response.status == 400 && AmplitudeAnswer.refusesKey(response.body))
        return refused ? .unauthorized(status: response.status, url: configuration.url, body: response.body) : nil
    }

    /// Stops delivery for `error`, said once.
    func stop(_ error: OutboxError) -> Stopped {
        let first = state.withLock { state in
            defer { state.stopped = error }
            return state.stopped == nil
        }
        if first { outbox.onError(error) }
        return Stopped(error: error)
    }

    /// Sets aside the results a vendor named as invalid, and says so once for all of them.
    func setAside(_ items: [OutboxStore.Stored], response: UploadResponse) throws {
        guard !items.isEmpty else { return }
        let dropped = try outbox.store.deadLetter(
            items, status: response.status, body: response.body, reason: "refused by \(configuration.format.vendor)",
            now: Date().timeIntervalSince1970)
        state.withLock { state in
            state.tally.deadLettered += items.count - dropped
            state.tally.lastSetAside = "\(response.status) from \(configuration.url) (\(response.body.prefix(120)))"
        }
        outbox.onError(.refused(status: response.status, messageIds: items.compactMap(\.message?.messageId), body: response.body))
        reportDeadLetterCap(dropped)
    }
}

/// Amplitude's answers to a refused batch (HTTP V2 API).
enum AmplitudeAnswer {
    /// The positions of the events a 400 names as invalid (`events_with_invalid_fields`,
    /// `events_with_missing_fields`, `events_with_invalid_id_lengths`, `silenced_events`),
    /// within 0..<`count`; nil when it names none (the batch is then bisected as any refusal).
    static func invalidEvents(in body: String, count: Int) -> Set<Int>? {
        guard let object = parse(body) else { return nil }
        var positions: Set<Int> = []
        for key in ["events_with_invalid_fields", "events_with_missing_fields", "events_with_invalid_id_lengths"] {
            for (_, list) in object[key]?.objectValue ?? [:] {
                for element in list.arrayValue ?? [] {
                    if let position = element.safeIntegerValue, position >= 0, position < count { positions.insert(position) }
                }
            }
        }
        for element in object["silenced_events"]?.arrayValue ?? [] {
            if let position = element.safeIntegerValue, position >= 0, position < count { positions.insert(position) }
        }
        return positions.isEmpty ? nil : positions
    }

    /// Whether a 400 says the API key is wrong or missing.
    static func refusesKey(_ body: String) -> Bool {
        guard let object = parse(body) else { return false }
        if object["error"]?.stringValue?.lowercased().hasPrefix("invalid api key") == true { return true }
        return object["missing_field"]?.stringValue == "api_key"
    }

    private static func parse(_ body: String) -> OrderedDictionary<String, JSONValue>? {
        do { return try JSONValue(parsing: body).objectValue } catch { return nil }  // not JSON: a plain refusal
    }
}
