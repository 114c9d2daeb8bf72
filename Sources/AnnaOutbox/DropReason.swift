/// Why results were dropped; every drop is counted under one of these (``OutboxStats/dropped``).
public enum DropReason: String, Sendable, CaseIterable, Codable {
    /// Over ``OutboxConfiguration/maximumResultBytes``, refused at append.
    case tooLarge
    /// The oldest, over ``OutboxConfiguration/maximumRows``.
    case rowCap
    /// The oldest, over ``OutboxConfiguration/maximumBytes``.
    case byteCap
    /// Older than ``OutboxConfiguration/maximumAgeSeconds``.
    case age
    /// The oldest dead letters, over ``OutboxConfiguration/maximumDeadLetters``.
    case deadLetterCap
    /// Appended while more than ``OutboxConfiguration/maximumUnwrittenBytes`` waited to be written.
    case backpressure
    /// A write to the file failed (disk full, permissions); reported with the error.
    case writeFailed
    /// Lost in a damaged file: rows the salvage could not read.
    case corrupt
}
