/// Why results were dropped; every drop is counted under one of these (``OutboxStats/dropped``).
public enum DropReason: String, Sendable, CaseIterable, Codable {
    /// Over ``OutboxConfiguration/maximumResultBytes``, refused at append.
    case tooLarge
    /// Nested deeper than ``WireFormat/maximumResultDepth``, refused at append.
    case tooDeep
    /// The oldest, over ``OutboxConfiguration/maximumRows``.
    case rowCap
    /// The oldest, over ``OutboxConfiguration/maximumBytes``.
    case byteCap
    /// Older than ``OutboxConfiguration/maximumAge``.
    case age
    /// Refused results that found the dead letters at ``OutboxConfiguration/maximumDeadLetters``.
    case deadLetterCap
    /// Appended while more than ``OutboxConfiguration/maximumUnwrittenBytes`` waited to be written.
    case backpressure
    /// Never written: refused while writes to the file failed (disk full, permissions) or
    /// while another `Outbox` held the file, or still unwritten when the outbox was closed;
    /// reported with the error.
    case writeFailed
    /// Lost in a damaged file: rows the salvage could not read.
    case corrupt
}
