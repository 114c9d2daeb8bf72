import CoreJS
import OrderedCollections

/// What of a user's data never leaves a ``Manager``: keys taken out of every result before
/// any listener sees it (the outbox, the streams, the delegate, the inspector) and out of the
/// recording (``Manager/Dependency/recordingURL``). Tasks still see everything: redaction is
/// about what is stored, sent and shown, not about what tasks may compute.
///
/// ```swift
/// dependency.redaction = Redaction(keys: ["email", "card.number"])
/// ```
///
/// - A bare key (`email`) is removed wherever it appears: at any depth of a result's value,
///   of an event's properties and of a node's attributes.
/// - A dotted key (`card.number`) is removed at that path from the top of each (array
///   elements on the way are looked through: `items.card` is every item's `card`).
/// - An `ana-updated` event whose `key-path` is a redacted key (or ends in a bare one) loses
///   its `value` in the recording: it replays as the value set to `nil`.
/// - ``results``, when set, runs last on each result: it may change it, or drop it (`nil`),
///   for data that keys cannot name (a value a task put under another key).
public struct Redaction: Sendable {
    /// The keys removed, bare (`email`) or dotted (`card.number`).
    public let keys: [String]
    /// Runs on each result after the keys are removed; `nil` drops the result.
    public var results: (@Sendable (AnalyticsResult) -> AnalyticsResult?)?

    private let anywhere: Set<String>
    private let paths: Set<[String]>

    /// Redacts `keys` (and, when given, passes each result through `results`).
    public init(keys: [String] = [], results: (@Sendable (AnalyticsResult) -> AnalyticsResult?)? = nil) {
        self.keys = keys
        self.results = results
        let split = keys.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        anywhere = Set(split.filter { $0.count == 1 }.map { $0[0] })
        paths = Set(split.filter { $0.count > 1 })
    }

    /// `result` with the keys removed and ``results`` applied; `nil` when that drops it.
    public func redact(_ result: AnalyticsResult) -> AnalyticsResult? {
        var redacted = result
        redacted.value = redact(result.value)
        return results.map { $0(redacted) } ?? redacted
    }

    /// `value` with the keys removed.
    public func redact(_ value: JSONValue) -> JSONValue {
        anywhere.isEmpty && paths.isEmpty ? value : redact(value, at: [])
    }

    /// `operation` as the recording and the inspector get it: the keys removed from an
    /// event's properties and a node's attributes, and the value of an update of a redacted key.
    public func redact(_ operation: ModuleOperation) -> ModuleOperation {
        guard !anywhere.isEmpty || !paths.isEmpty else { return operation }
        switch operation {
        case let .register(id, parent, name, index, namespace, attributes):
            return .register(id: id, parent: parent, name: name, index: index, namespace: namespace, attributes: attributes.map(redact))
        case let .event(id, name, properties):
            var redacted = redact(properties)
            if name == StandardEvent.updated, case var .object(members) = redacted, let keyPath = members[StandardEvent.keyPath]?.stringValue,
                redacts(keyPath: keyPath)
            {
                members[StandardEvent.value] = nil
                redacted = .object(members)
            }
            return .event(id: id, name: name, properties: redacted)
        case .deregister:
            return operation
        }
    }

    /// ``redact(_:)-(ModuleOperation)`` of a timed operation, its time kept.
    public func redact(_ operation: TimedOperation) -> TimedOperation {
        TimedOperation(redact(operation.operation), time: operation.time)
    }

    private func redacts(keyPath: String) -> Bool {
        let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return paths.contains(parts) || parts.last.map(anywhere.contains) == true
    }

    private func redact(_ value: JSONValue, at path: [String]) -> JSONValue {
        switch value {
        case let .object(members):
            var kept = OrderedDictionary<String, JSONValue>()
            kept.reserveCapacity(members.count)
            for (key, member) in members where !anywhere.contains(key) {
                let memberPath = path + [key]
                if paths.contains(memberPath) { continue }
                kept[key] = redact(member, at: memberPath)
            }
            return .object(kept)
        case let .array(elements):
            return .array(elements.map { redact($0, at: path) })
        default:
            return value
        }
    }
}
