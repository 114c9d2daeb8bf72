import CoreJS
import OrderedCollections

/// How an ``Outbox`` keeps results: durability, the size limit of one result, and the disk
/// caps that drop the oldest results (each drop counted by reason).
public struct OutboxConfiguration: Sendable {
    /// When an appended result counts as saved.
    public enum Durability: Sendable, Equatable {
        /// Once committed to the write-ahead log (`synchronous = NORMAL`): survives the
        /// process being killed at any point, not a power loss or an OS crash.
        case processKill
        /// Once the write-ahead log is fsynced (`synchronous = FULL`): survives a power loss too.
        case powerLoss
    }

    /// When an appended result counts as saved; default ``Durability/processKill``.
    public var durability: Durability = .processKill
    /// The largest result accepted, in bytes of its JSON text; a larger one is refused at
    /// append (``OutboxError/resultTooLarge(bytes:limit:task:)``) and counted under `tooLarge`.
    public var maximumResultBytes = 32 * 1024
    /// The most results kept waiting; beyond it the oldest are dropped (`rowCap`).
    public var maximumRows = 1_000_000
    /// The most bytes of results kept waiting; beyond it the oldest are dropped (`byteCap`).
    public var maximumBytes = 256 * 1024 * 1024
    /// The oldest a waiting result may get; older ones are dropped (`age`).
    public var maximumAge: Duration = .seconds(7 * 24 * 3600)
    /// The most results kept in the dead-letter table; beyond it the oldest go (`deadLetterCap`).
    public var maximumDeadLetters = 10_000
    /// The most bytes of results appended but not yet written; beyond it new results are
    /// dropped (`backpressure`) rather than the caller waiting or memory growing without bound.
    public var maximumUnwrittenBytes = 64 * 1024 * 1024
    /// Whether `append` waits for the writer instead, when `maximumUnwrittenBytes` wait:
    /// nothing is dropped by back-pressure and the caller runs at the disk's pace. For batch
    /// tools replaying streams (`anna run --outbox` sets it); never on an app's main thread.
    public var waitsWhenBehind = false
    /// The most results written in one transaction (a group commit takes all that are
    /// waiting, up to this many).
    public var maximumRowsPerTransaction = 8192
    /// The shortest time between the starts of two writes while results keep arriving:
    /// results appended meanwhile wait in memory and go in the next transaction together,
    /// so a steady stream makes few large transactions. A result appended to an idle outbox
    /// is written at once. 0 writes whenever the previous write ends; a negative interval
    /// counts as 0 and one longer than 60 s as 60 s.
    public var commitInterval: Duration = .milliseconds(2)
    /// Whether opening checks the file (`PRAGMA quick_check`) and salvages a damaged one.
    public var verifiesOnOpen = true
    /// Whether the file is opened for reading only (`anna outbox stats`, `dead`): nothing is
    /// created, migrated or written, appends are refused, and a damaged file is reported
    /// (``OutboxError/storage(path:message:)``) rather than salvaged.
    public var readOnly = false

    /// The destinations each result is queued for, each with its own queue in the file
    /// (one ``OutboxUploader`` each, named by ``UploadConfiguration/destination``); `[""]`,
    /// the default destination, unless set. The caps count every destination's rows.
    public var destinations: [String] = [""]
    /// The app's name and version, sent in every result's context.
    public var app: AppInfo?
    /// Context added to every result's (``AnalyticsContext/make(app:extra:)``).
    public var context: OrderedDictionary<String, JSONValue> = [:]
    /// Properties added to every track and screen (an event's own win).
    public var superProperties: OrderedDictionary<String, JSONValue> = [:]
    /// How long without a result ends an analytics session (by the results' event times);
    /// 30 minutes, as PostHog's and Amplitude's web SDKs.
    public var sessionIdleTimeout: Duration = .seconds(30 * 60)

    /// The defaults: kill-safe, 32 KB per result, 1M results, 256 MB, 7 days.
    public init() {}
}

/// How an ``OutboxUploader`` sends results: the limits of one batch and the retry policy.
public struct UploadConfiguration: Sendable {
    /// Where batches are posted.
    public var url: String
    /// Sent as `Authorization: Bearer <token>` when set.
    public var bearerToken: String?
    /// Whether bodies are gzip-compressed (`Content-Encoding: gzip`).
    public var gzip = false
    /// The most results in one batch.
    public var maximumBatchCount = 100
    /// The most bytes of one batch's body (before compression).
    public var maximumBatchBytes = 500 * 1024
    /// The first back-off delay after a retryable failure (doubled each time).
    public var initialBackoff: Duration = .milliseconds(500)
    /// The longest back-off delay.
    public var maximumBackoff: Duration = .seconds(300)
    /// The largest share of a back-off delay taken off at random (0.1: up to 10% shorter).
    public var jitter = 0.1
    /// The longest `Retry-After` honoured (a longer one is clamped to it).
    public var maximumRetryAfter: Duration = .seconds(3600)
    /// How long one request may take before it counts as a network failure.
    public var requestTimeout: Duration = .seconds(30)
    /// The most bytes of a refusal's response body kept with a dead letter.
    public var maximumKeptResponseBytes = 4096
    /// How often an idle uploader looks for new results.
    public var pollInterval: Duration = .milliseconds(50)

    /// The body sent and the answers understood; ``DeliveryFormat/anna`` by default.
    public var format: DeliveryFormat
    /// The destination whose queue is sent (``OutboxConfiguration/destinations``); `""`, the default one.
    public var destination = ""
    /// The vendor's key: Segment's write key (Basic auth), PostHog's project API key and
    /// Amplitude's API key (in the body).
    public var apiKey: String?
    /// Headers added to every request (a webhook's token, say).
    public var headers: [(name: String, value: String)] = []
    /// When set, every request carries `X-Anna-Signature: sha256=<hex>`, the HMAC-SHA256 of
    /// its body with this secret.
    public var signingSecret: String?
    /// How many results make ``OutboxUploader/run()`` send at once; fewer wait up to
    /// ``flushInterval`` for more (``OutboxUploader/flush(timeout:)`` sends all there are).
    public var flushAt: Int
    /// How long ``OutboxUploader/run()`` lets fewer than ``flushAt`` results wait.
    public var flushInterval: Duration
    /// The most bytes one result may take in the destination's format; a larger one is set
    /// aside as a dead letter (Segment: 32 KB).
    public var maximumEventBytes: Int

    /// Uploads to `url` in `format` with the format's defaults: Anna's own sends at once, 100
    /// results and 500 KB per batch; Segment, PostHog and Amplitude batch 20 results or wait
    /// 30 s, within each API's limits. Back-off from 0.5 s doubling to 300 s with up to 10% jitter.
    public init(url: String, format: DeliveryFormat = .anna) {
        self.url = url
        self.format = format
        let defaults = format.defaults
        flushAt = defaults.flushAt
        flushInterval = defaults.flushInterval
        maximumBatchCount = defaults.maximumBatchCount
        maximumBatchBytes = defaults.maximumBatchBytes
        maximumEventBytes = defaults.maximumEventBytes
        // Amplitude names the refused events of a batch in its answer: keep all of it.
        if format == .amplitude { maximumKeptResponseBytes = 256 * 1024 }
    }
}
