import CoreJS

/// Expected results, in the spirit of Tracer traces: the items a run must produce.
struct Trace {
    /// The trace's name in reports.
    var name: String
    /// The results expected, compared as JSON values (key order ignored).
    var items: [JSONValue]
    /// Whether the items must appear in this order.
    var enforceOrder: Bool
    /// Whether an item may appear more often than listed.
    var allowDuplicates: Bool

    /// Reads a trace file: one trace object, an array of them, or `{ "traces": [...] }`.
    static func load(_ text: String, file: String) throws -> [Trace] {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch let error as JSONParseError {
            throw TraceFileError("\(file): invalid JSON at column \(error.column): \(error.reason)")
        }
        let objects: [JSONValue]
        switch value {
        case let .array(elements): objects = elements
        case .object where value["traces"] != nil: objects = value["traces"]?.arrayValue ?? []
        case .object: objects = [value]
        default: throw TraceFileError("\(file): expected a trace object or an array of traces")
        }
        guard !objects.isEmpty else { throw TraceFileError("\(file): no traces") }
        return try objects.enumerated().map { position, object in
            guard case .object = object else { throw TraceFileError("\(file): trace \(position + 1) is not an object") }
            guard let items = object["items"]?.arrayValue else {
                throw TraceFileError("\(file): trace \(position + 1) needs an array 'items'")
            }
            func flag(_ key: String, default defaultValue: Bool) throws -> Bool {
                guard let value = object[key] else { return defaultValue }
                guard let flag = value.boolValue else { throw TraceFileError("\(file): '\(key)' must be true or false") }
                return flag
            }
            return Trace(
                name: object["name"]?.stringValue ?? "trace \(position + 1)", items: items,
                enforceOrder: try flag("enforceOrder", default: true),
                allowDuplicates: try flag("allowDuplicates", default: false))
        }
    }
}

/// A trace file that cannot be used, with the reason.
struct TraceFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
