import CoreJS
import Logging

/// A swift-log destination for tests: keeps every message with its level.
public final class CapturedLog: Sendable {
    private let entries = Locked<[(level: Logger.Level, message: String)]>([])

    /// An empty log.
    public init() {}

    /// A logger writing here.
    public var logger: Logger {
        Logger(label: "anna") { _ in Handler(log: self) }
    }

    /// The messages logged so far at `level`.
    public func messages(at level: Logger.Level) -> [String] {
        entries.withLock { $0.filter { $0.level == level }.map(\.message) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.entries.withLock { $0.append((event.level, event.message.description)) }
        }
    }
}
