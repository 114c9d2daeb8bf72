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
    /// Whether opening checks the file (`PRAGMA quick_check`) and salvages a damaged one.
    public var verifiesOnOpen = true
    /// Whether the file is opened for reading only (`anna outbox stats`, `dead`): nothing is
    /// created, migrated or written, appends are refused, and a damaged file is reported
    /// (``OutboxError/storage(path:message:)``) rather than salvaged.
    public var readOnly = false

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

    /// Uploads to `url` with the default limits: 100 results and 500 KB per batch, back-off
    /// from 0.5 s doubling to 300 s with up to 10% jitter.
    public init(url: String) {
        self.url = url
    }
}
