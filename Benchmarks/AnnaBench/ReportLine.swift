import CoreJS

/// One JSON object with its keys in the order they were added: a line of the benchmark's
/// output, or what a measurement child prints for the orchestrator.
///
/// ```swift
/// var line = ReportLine()
/// line["scenario"] = "W1"
/// line["eventsPerSecond"] = .number(2_100_000)
/// print(line.jsonText)   // {"scenario":"W1","eventsPerSecond":2100000}
/// ```
struct ReportLine: Sendable {
    private(set) var fields: [(key: String, value: JSONValue)] = []

    init() {}

    /// Reads a line printed by ``jsonText``.
    /// - Throws: `JSONParseError` for malformed text, ``BenchError/unreadableFile(path:reason:)``
    ///   when it is not an object.
    init(parsing text: String, source: String) throws {
        let value = try JSONValue(parsing: text)
        guard let members = value.objectValue else {
            throw BenchError.unreadableFile(path: source, reason: "not a JSON object: \(text.prefix(200))")
        }
        fields = members.map { (key: $0.key, value: $0.value) }
    }

    /// The value for `key`; setting replaces it in place or appends it.
    subscript(key: String) -> JSONValue? {
        get { fields.first { $0.key == key }?.value }
        set {
            if let position = fields.firstIndex(where: { $0.key == key }) {
                if let newValue { fields[position].value = newValue } else { fields.remove(at: position) }
            } else if let newValue {
                fields.append((key, newValue))
            }
        }
    }

    /// The number for `key`, or 0.
    func number(_ key: String) -> Double {
        self[key]?.numberValue ?? 0
    }

    /// The string for `key`, or "".
    func string(_ key: String) -> String {
        self[key]?.stringValue ?? ""
    }

    /// `{"key":value,…}` on one line.
    var jsonText: String {
        "{" + fields.map { JSONValue.string($0.key).jsonText + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
    }
}

extension JSONValue {
    /// `value` rounded to `digits` decimals, as a number.
    static func rounded(_ value: Double, _ digits: Int = 0) -> JSONValue {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        return .number((value * scale).rounded() / scale)
    }
}
