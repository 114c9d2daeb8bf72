import CoreJS
import OrderedCollections

/// The analytics call a result stands for, in the vocabulary of Segment's spec that PostHog,
/// Amplitude and RudderStack share: what a destination sends for it.
///
/// A task names one with the globals `track`, `screen` and `identify`, which return results
/// tagged by `type`; any other result maps by one rule (``init(_:)``), so tasks written before
/// them keep working:
///
/// | The task returns | The call |
/// | --- | --- |
/// | `track('Added', { sku: 'A1' })` | track `Added`, properties `{ sku: 'A1' }` |
/// | `screen('Home')` | screen `Home`, properties `{}` |
/// | `identify('u-1', { plan: 'pro' })` | identify `u-1`, traits `{ plan: 'pro' }` |
/// | `{ event: 'cart_badge', count: 2 }` | track `cart_badge`, properties `{ count: 2 }` |
/// | `{ event: 'Added', properties: { sku: 'A1' } }` | track `Added`, properties `{ sku: 'A1' }` |
/// | `'fine'`, `42`, `[1, 2]`, `{ action: 'viewed' }` | track named by the task's pattern, properties `{ value: … }` |
public enum AnalyticsCall: Sendable, Equatable {
    /// Something happened: an event name and its properties.
    case track(event: String, properties: OrderedDictionary<String, JSONValue>)
    /// A screen was shown: its name and properties.
    case screen(name: String, properties: OrderedDictionary<String, JSONValue>)
    /// The user is `userId` from now on, with these traits.
    case identify(userId: String, traits: OrderedDictionary<String, JSONValue>)

    /// The event name of a result that names none: the task's pattern, or `result` when
    /// the core does not say which task it was.
    public static let unnamedEvent = "result"

    /// The call `result` stands for:
    /// - an object whose `type` is `screen` with a string `name` is a screen call, and one whose
    ///   `type` is `identify` with a string `userId` an identify call; their `properties` (or
    ///   `traits`) are that member when it is an object, else the object's other members;
    /// - an object with a string `event` is a track of that name, with its `properties` member
    ///   when that is an object, else its other members (a `type` of `track` left out);
    /// - anything else is a track named by the task's pattern (``ResultMeta/task``), with the
    ///   value as the property `value`.
    public init(_ result: AnalyticsResult) {
        guard case let .object(members) = result.value else {
            self = .track(event: result.meta?.task ?? Self.unnamedEvent, properties: ["value": result.value])
            return
        }
        let type = members["type"]?.stringValue
        if type == "screen", let name = members["name"]?.stringValue {
            self = .screen(name: name, properties: Self.fields(members, "properties", leaving: ["type", "name"]))
        } else if type == "identify", let userId = members["userId"]?.stringValue {
            self = .identify(userId: userId, traits: Self.fields(members, "traits", leaving: ["type", "userId"]))
        } else if let event = members["event"]?.stringValue {
            let leaving: Set<String> = type == "track" ? ["type", "event"] : ["event"]
            self = .track(event: event, properties: Self.fields(members, "properties", leaving: leaving))
        } else {
            self = .track(event: result.meta?.task ?? Self.unnamedEvent, properties: ["value": result.value])
        }
    }

    /// `members[key]` when it is an object, else the members but those `leaving`.
    private static func fields(
        _ members: OrderedDictionary<String, JSONValue>, _ key: String, leaving: Set<String>
    ) -> OrderedDictionary<String, JSONValue> {
        if case let .object(fields)? = members[key] { return fields }
        return members.filter { !leaving.contains($0.key) }
    }
}
