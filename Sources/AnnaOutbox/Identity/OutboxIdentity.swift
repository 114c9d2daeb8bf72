import CoreJS
import Foundation
import OrderedCollections

/// Who the results of an ``Outbox`` are about: an anonymous ID made once per install and kept
/// in the outbox file, the user ID of the last identify, and an analytics session; with the
/// context and super-properties every result is stamped with when it is appended.
///
/// A session starts with the first result and ends after ``OutboxConfiguration/sessionIdleTimeout``
/// without one, judged on the results' event times (a replayed stream rotates as the app did);
/// ``startSession(id:)`` sets one instead, and then it no longer rotates by itself.
public final class OutboxIdentity: Sendable {
    struct State: Sendable {
        var anonymousId: String
        var userId: String?
        var sessionId: Int64?
        var lastEventTime: Double?
        /// Whether the app set the session (it then does not rotate).
        var sessionSetByApp = false
        var extraContext: OrderedDictionary<String, JSONValue>
        var superProperties: OrderedDictionary<String, JSONValue>
        /// The envelope of the last result, until something in it changes.
        var current: StampedEnvelope?
    }

    /// The keys of the `identity` table.
    enum Key {
        static let anonymousId = "anonymousId"
        static let userId = "userId"
        static let sessionId = "sessionId"
        static let lastEventTime = "lastEventTime"
        static let sessionSetByApp = "sessionSetByApp"
    }

    let state: Locked<State>
    let app: AppInfo?
    let idleTimeout: Double
    let save: @Sendable ([String: String?]) -> Void

    /// The identity stored in the file (`stored`); a new anonymous ID (not saved) when it holds
    /// none, as in a file opened read-only.
    init(
        stored: [String: String], configuration: OutboxConfiguration, save: @escaping @Sendable ([String: String?]) -> Void
    ) {
        let anonymousId = stored[Key.anonymousId] ?? Self.newAnonymousId()
        state = Locked(
            State(
                anonymousId: anonymousId, userId: stored[Key.userId], sessionId: stored[Key.sessionId].flatMap { Int64($0) },
                lastEventTime: stored[Key.lastEventTime].flatMap { Double($0) },
                sessionSetByApp: stored[Key.sessionSetByApp] != nil, extraContext: configuration.context,
                superProperties: configuration.superProperties))
        app = configuration.app
        idleTimeout = configuration.sessionIdleTimeout.inSeconds * 1000
        self.save = save
    }

    /// A new anonymous ID: a random UUID, lowercased.
    static func newAnonymousId() -> String { UUID().uuidString.lowercased() }

    /// The install's anonymous ID.
    public var anonymousId: String { state.withLock { $0.anonymousId } }
    /// The user ID of the last identify; nil before one and after ``reset()``.
    public var userId: String? { state.withLock { $0.userId } }
    /// The current analytics session (its start in milliseconds since the epoch); nil before
    /// the first result.
    public var sessionId: Int64? { state.withLock { $0.sessionId } }

    /// Sets the user ID for the results appended from now on, without sending an identify
    /// (``Outbox/identify(userId:traits:)`` sends one). Kept in the file.
    public func setUserId(_ userId: String?) {
        change { $0.userId = userId }
        save([Key.userId: userId])
    }

    /// Replaces the anonymous ID (an app that keeps its own, or `anna run --anonymous-id`). Kept in the file.
    public func setAnonymousId(_ anonymousId: String) {
        change { $0.anonymousId = anonymousId }
        save([Key.anonymousId: anonymousId])
    }

    /// Starts a new anonymous identity: a new anonymous ID, no user ID, and a new session at
    /// the next result (what a logout does). Results already appended keep theirs.
    public func reset() {
        let anonymousId = Self.newAnonymousId()
        change { state in
            state.anonymousId = anonymousId
            state.userId = nil
            state.sessionId = nil
            state.lastEventTime = nil
            state.sessionSetByApp = false
        }
        save([
            Key.anonymousId: anonymousId, Key.userId: nil, Key.sessionId: nil, Key.lastEventTime: nil, Key.sessionSetByApp: nil,
        ])
    }

    /// Sets the analytics session: `id` (milliseconds since the epoch, as Amplitude's
    /// `session_id`), or now when nil. It no longer rotates by itself until ``reset()`` (the
    /// file keeps that too).
    public func startSession(id: Int64? = nil) {
        let id = id ?? Int64(Date().timeIntervalSince1970 * 1000)
        change { state in
            state.sessionId = id
            state.sessionSetByApp = true
        }
        save([Key.sessionId: String(id), Key.sessionSetByApp: "1"])
    }

    /// Adds `properties` to every track and screen appended from now on (an event's own
    /// properties of the same name win); a `.null` value removes that super-property.
    public func register(superProperties properties: OrderedDictionary<String, JSONValue>) {
        change { state in
            for (key, value) in properties {
                if value == .null { state.superProperties.removeValue(forKey: key) } else { state.superProperties[key] = value }
            }
        }
    }

    /// Adds `context` to every result's context from now on (replacing what has the same key).
    public func addContext(_ context: OrderedDictionary<String, JSONValue>) {
        change { state in
            for (key, value) in context { state.extraContext[key] = value }
        }
    }

    /// The identity now, without a session: for results kept before identities were stamped.
    var unstamped: Envelope {
        state.withLock { state in
            Envelope(
                anonymousId: state.anonymousId, userId: state.userId, sessionId: nil,
                context: AnalyticsContext.make(app: app, extra: state.extraContext), superProperties: state.superProperties)
        }
    }

    private func change(_ body: (inout State) -> Void) {
        state.withLock { state in
            body(&state)
            state.current = nil
        }
    }

    /// The envelope of a result whose event happened at `time` (ms): the session rotated when
    /// the time since the last result passed the idle timeout; an identify's `userId` taken
    /// first, so the identify itself carries it.
    func stamp(time: Double, identifying userId: String?) -> StampedEnvelope {
        let (stamped, saved): (StampedEnvelope, [String: String?]?) = state.withLock { state in
            var saved: [String: String?]?
            if let userId, userId != state.userId {
                state.userId = userId
                state.current = nil
                saved = [Key.userId: userId]
            }
            if !state.sessionSetByApp {
                let idle = state.lastEventTime.map { time - $0 > idleTimeout } ?? true
                if state.sessionId == nil || idle {
                    state.sessionId = Int64(time.isFinite ? time : 0)
                    state.current = nil
                }
            }
            state.lastEventTime = max(state.lastEventTime ?? time, time)
            if let current = state.current { return (current, saved) }
            let stamped = StampedEnvelope(
                Envelope(
                    anonymousId: state.anonymousId, userId: state.userId, sessionId: state.sessionId,
                    context: AnalyticsContext.make(app: app, extra: state.extraContext), superProperties: state.superProperties))
            state.current = stamped
            return (stamped, saved)
        }
        if let saved { save(saved) }
        return stamped
    }
}
