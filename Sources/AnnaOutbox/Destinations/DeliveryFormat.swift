/// The body an ``OutboxUploader`` sends, and the answers it understands
/// (docs/destinations.md has the mapping of each).
public enum DeliveryFormat: String, Sendable, CaseIterable, Codable {
    /// Anna's own body (``WireFormat``), for `anna collect` or any collector of it.
    case anna
    /// Segment's `POST /v1/batch` (Basic auth, the write key as the user): Segment,
    /// RudderStack and Jitsu accept it.
    case segment
    /// PostHog's `POST /batch/` (`api_key` in the body).
    case posthog
    /// Amplitude's HTTP V2 API, `POST /2/httpapi` (`api_key` in the body).
    case amplitude
    /// Segment's body to any URL, with the headers given and no vendor's auth.
    case webhook

    /// The defaults each vendor's own SDKs use: how many results make a batch worth sending
    /// at once, how long a result may wait for more, and the limits of one request.
    struct Defaults {
        var flushAt: Int
        var flushInterval: Duration
        var maximumBatchCount: Int
        var maximumBatchBytes: Int
        var maximumEventBytes: Int
    }

    /// The defaults of the format: 20 results or 30 s (what Segment's analytics-swift and
    /// PostHog's and Amplitude's mobile SDKs use), within each API's request limits; Anna's
    /// own format sends at once, as before.
    var defaults: Defaults {
        switch self {
        case .anna:
            return Defaults(
                flushAt: 1, flushInterval: .zero, maximumBatchCount: 100, maximumBatchBytes: 500 * 1024,
                maximumEventBytes: 1 << 26)
        case .segment, .webhook:
            // Segment: ≤ 500 KB per batch and ≤ 32 KB per event.
            return Defaults(
                flushAt: 20, flushInterval: .seconds(30), maximumBatchCount: 100, maximumBatchBytes: 475_000,
                maximumEventBytes: 32 * 1024)
        case .posthog:
            // PostHog: 20 MB per request (its SDKs stop at 5 MB), 900 KB per event.
            return Defaults(
                flushAt: 20, flushInterval: .seconds(30), maximumBatchCount: 100, maximumBatchBytes: 5 * 1024 * 1024,
                maximumEventBytes: 900 * 1024)
        case .amplitude:
            // Amplitude: < 1 MB and < 2,000 events per request.
            return Defaults(
                flushAt: 20, flushInterval: .seconds(30), maximumBatchCount: 1000, maximumBatchBytes: 1_000_000 - 1024,
                maximumEventBytes: 1_000_000 - 2048)
        }
    }

    /// The vendor's name, for messages.
    var vendor: String {
        switch self {
        case .anna: return "the collector"
        case .segment: return "Segment"
        case .posthog: return "PostHog"
        case .amplitude: return "Amplitude"
        case .webhook: return "the webhook"
        }
    }
}
