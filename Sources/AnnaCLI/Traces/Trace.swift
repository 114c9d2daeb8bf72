import CoreJS

/// Expected results, in the spirit of Tracer traces: the items a run must produce.
struct Trace {
    /// How an item is compared with a result.
    enum Match: String, CaseIterable {
        /// Equal JSON values (key order ignored).
        case exact
        /// The result has the item's keys with equal values, recursively: an object may have
        /// more keys; arrays have the same length, element by element.
        case subset
    }

    /// One expected result, with the line it starts on in the trace file.
    struct Item {
        var value: JSONValue
        var line: Int
    }

    /// The trace's name in reports.
    var name: String
    /// The results expected.
    var items: [Item]
    /// Whether the items must appear in this order.
    var enforceOrder: Bool
    /// Whether an item may appear more often than listed.
    var allowDuplicates: Bool
    /// How items are compared with results.
    var match: Match
    /// The trace file, as given, and the line the trace starts on.
    var file: String
    var line: Int

    /// The keys a trace object may have.
    static let keys = ["name", "items", "match", "enforceOrder", "allowDuplicates"]

    /// Whether `result` is what `item` expects, under ``match``.
    func matches(_ item: JSONValue, _ result: JSONValue) -> Bool {
        match == .exact ? item == result : Self.contains(result, item)
    }

    /// Whether `result` has `item`'s keys with equal values, recursively.
    static func contains(_ result: JSONValue, _ item: JSONValue) -> Bool {
        switch (item, result) {
        case let (.object(expected), .object(actual)):
            return expected.allSatisfy { member in actual[member.key].map { contains($0, member.value) } ?? false }
        case let (.array(expected), .array(actual)):
            return expected.count == actual.count && zip(actual, expected).allSatisfy { contains($0, $1) }
        default:
            return item == result
        }
    }

    /// Reads the trace file at `path` for a command: a file that cannot be read exits 66, an
    /// unknown key 64 and a malformed file 65, each said once on standard error.
    static func loadFile(_ path: String) throws -> [Trace] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw CommandFailure("anna: cannot read the trace file \(path): \(error.localizedDescription)", exitCode: ExitCodes.noInput)
        }
        do { return try load(text, file: path) } catch {
            throw CommandFailure(error.description, exitCode: error.isUsage ? ExitCodes.usage : ExitCodes.malformedStream)
        }
    }

    /// Reads a trace file: one trace object, an array of them, or `{ "traces": [...] }`.
    /// Every message starts `FILE:LINE:`.
    static func load(_ text: String, file: String) throws(TraceFileError) -> [Trace] {
        let value: JSONValue
        do { value = try JSONValue(parsing: text, options: .rejectingDuplicateKeys) } catch {
            let column = (error as? JSONParseError)?.column ?? 1
            let reason = (error as? JSONParseError)?.reason ?? "\(error)"
            let position = JSONLines.position(ofScalar: column, in: text)
            throw TraceFileError("\(file):\(position.line):\(position.column): invalid JSON: \(reason)")
        }
        let lines = JSONLines(text)
        let objects: [(value: JSONValue, lines: JSONLines?)]
        switch value {
        case let .array(elements):
            objects = elements.enumerated().map { ($1, lines[$0]) }
        case .object where value["traces"] != nil:
            if let key = keys(of: value).first(where: { $0 != "traces" }) {
                throw TraceFileError(
                    "\(file):\(lines.keyLine(key) ?? 1): unknown key '\(key)' beside 'traces' (a file of traces is an array, "
                        + "or an object with 'traces' alone)", isUsage: true)
            }
            guard let traces = value["traces"]?.arrayValue else {
                throw TraceFileError("\(file):\(lines["traces"]?.line ?? 1): 'traces' must be an array of traces")
            }
            objects = traces.enumerated().map { ($1, lines["traces"]?[$0]) }
        case .object:
            objects = [(value, lines)]
        default:
            throw TraceFileError("\(file):1: expected a trace object or an array of traces")
        }
        guard !objects.isEmpty else { throw TraceFileError("\(file):\(lines.line): no traces") }
        return try objects.enumerated().map { (position, entry) throws(TraceFileError) in
            try trace(entry.value, lines: entry.lines, number: position + 1, file: file)
        }
    }

    /// The `number`th trace of `file`, read from `object`.
    private static func trace(_ object: JSONValue, lines: JSONLines?, number: Int, file: String) throws(TraceFileError) -> Trace {
        let line = lines?.line ?? 1
        guard case .object = object else { throw TraceFileError("\(file):\(line): trace \(number) is not an object") }
        let name = object["name"].map { $0.stringValue } ?? "trace \(number)"
        guard let name else { throw TraceFileError("\(file):\(lines?["name"]?.line ?? line): 'name' must be a string") }
        for key in keys(of: object) where !keys.contains(key) {
            let suggestion = keys.min { editDistance(key, $0) < editDistance(key, $1) }.flatMap { editDistance(key, $0) <= 3 ? $0 : nil }
            throw TraceFileError(
                "\(file):\(lines?.keyLine(key) ?? line): unknown key '\(key)' in trace '\(name)'"
                    + (suggestion.map { "; did you mean '\($0)'?" } ?? "") + " (a trace has " + keys.joined(separator: ", ") + ")",
                isUsage: true)
        }
        guard let items = object["items"]?.arrayValue else {
            throw TraceFileError("\(file):\(lines?["items"]?.line ?? line): trace '\(name)' needs an array 'items'")
        }
        func flag(_ key: String, default defaultValue: Bool) throws(TraceFileError) -> Bool {
            guard let value = object[key] else { return defaultValue }
            guard let flag = value.boolValue else {
                throw TraceFileError("\(file):\(lines?[key]?.line ?? line): '\(key)' must be true or false")
            }
            return flag
        }
        var match = Match.exact
        if let value = object["match"] {
            guard let text = value.stringValue, let chosen = Match(rawValue: text) else {
                throw TraceFileError("\(file):\(lines?["match"]?.line ?? line): 'match' must be \"exact\" or \"subset\", got \(value.jsonText)")
            }
            match = chosen
        }
        return Trace(
            name: name,
            items: items.enumerated().map { Item(value: $1, line: lines?["items"]?[$0]?.line ?? line) },
            enforceOrder: try flag("enforceOrder", default: true), allowDuplicates: try flag("allowDuplicates", default: false),
            match: match, file: file, line: line)
    }

    /// An object's keys, in order.
    private static func keys(of object: JSONValue) -> [String] {
        object.objectValue.map { Array($0.keys) } ?? []
    }

    /// The Levenshtein distance of two keys (for "did you mean").
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased())
        let b = Array(b.lowercased())
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// A trace file that cannot be used, with the reason (`FILE:LINE: …`).
struct TraceFileError: Error, CustomStringConvertible {
    let description: String
    /// An unknown key, a misspelt option of the trace (exit 64, as a misspelt flag);
    /// otherwise the file is malformed (65).
    let isUsage: Bool

    init(_ description: String, isUsage: Bool = false) {
        self.description = description
        self.isUsage = isUsage
    }
}
