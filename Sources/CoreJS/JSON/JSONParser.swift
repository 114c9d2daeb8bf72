/// A JSON parser over UTF-8 bytes (one pass, no intermediate copies of the input): the
/// grammar of containers over ``JSONByteCursor``'s scans, and the messages of its failures.
///
/// Callers go through `JSONValue(parsing:options:)` and `forEachElement(ofArrayUTF8:_:)` (JSONValueParsing.swift).
struct JSONParser {
    var cursor: JSONByteCursor
    var depth = 0
    /// Replace containers past ``JSONValue/maximumDepth`` by `"[Too deep]"` instead of failing.
    var cutsDeepContainers = false
    /// The checks beyond the grammar.
    var options: JSONParsingOptions = []
    /// How many containers were cut so far (``cutsDeepContainers``).
    private(set) var cuts = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { cursor = JSONByteCursor(bytes) }

    private var bytes: UnsafeBufferPointer<UInt8> { cursor.bytes }

    private var position: Int {
        get { cursor.position }
        set { cursor.position = newValue }
    }

    /// Runs `parse` over `bytes`, turning a failure into a ``JSONParseError`` whose column
    /// counts characters (Unicode scalars), not bytes.
    static func run<Result>(
        on bytes: UnsafeBufferPointer<UInt8>, cuttingDeepContainers: Bool = false, options: JSONParsingOptions = [],
        _ parse: (inout JSONParser) throws -> Result
    ) throws -> Result {
        var parser = JSONParser(bytes: bytes)
        parser.cutsDeepContainers = cuttingDeepContainers
        parser.options = options
        do {
            return try parse(&parser)
        } catch var failure as Failure {
            // Where in the document: found again only now, so parsing pays nothing for it.
            if failure.kind != .syntax { failure.path = Failure.steps(to: failure.offset, in: bytes) }
            let prefix = UnsafeBufferPointer(rebasing: bytes[..<min(failure.offset, bytes.count)])
            let column = String(decoding: prefix, as: UTF8.self).unicodeScalars.count + 1
            throw JSONParseError(reason: failure.reason, column: column, kind: failure.kind)
        }
    }

    mutating func parseDocument() throws -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        try finishDocument()
        return value
    }

    /// Parses a whole text that must be one array, handing out its elements one by one.
    mutating func parseArrayElements(_ body: (JSONValue) throws -> Void) throws {
        try parseArrayElementTexts { value, _ in try body(value) }
    }

    /// As ``parseArrayElements(_:)``, with each element's own bytes; nil when a container in
    /// the element was cut (the bytes are not the value's).
    mutating func parseArrayElementTexts(_ body: (consuming JSONValue, UnsafeBufferPointer<UInt8>?) throws -> Void) throws {
        skipWhitespace()
        guard current == UInt8(ascii: "[") else { throw failure("expected an array") }
        try readElements(body)
        try finishDocument()
    }

    private mutating func finishDocument() throws {
        skipWhitespace()
        if position < bytes.count { throw failure("unexpected text after the JSON value") }
    }

    /// Reads `[ value, … ]` from the opening bracket on, handing each value to `body`.
    private mutating func readElements(_ body: (consuming JSONValue, UnsafeBufferPointer<UInt8>?) throws -> Void) throws {
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            let (start, cutsBefore) = (position, cuts)
            let value = try parseValue()
            // Given away: without `consume` the optimizer copies each element and destroys it after.
            try body(consume value, cuts == cutsBefore ? UnsafeBufferPointer(rebasing: bytes[start..<position]) : nil)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return
            default: throw failure("expected ',' or ']' in an array")
            }
        }
    }

    private func failure(_ reason: String) -> Failure {
        Failure(problem: .syntax(reason), offset: position)
    }

    /// The character at `position` (a replacement character for bytes that are not UTF-8).
    private var currentScalar: Unicode.Scalar {
        let next = UnsafeBufferPointer(rebasing: bytes[position..<min(position + 4, bytes.count)])
        return String(decoding: next, as: UTF8.self).unicodeScalars.first ?? "\u{FFFD}"
    }

    private var current: UInt8? { cursor.current }

    private mutating func skipWhitespace() { cursor.skipWhitespace() }

    private mutating func expect(_ literal: StaticString, value: JSONValue) throws -> JSONValue {
        guard cursor.consume(literal) else { throw failure("invalid literal, expected '\(literal)'") }
        return value
    }

    private mutating func parseValue() throws -> JSONValue {
        guard let byte = current else { throw failure("unexpected end of text") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", value: .bool(true))
        case UInt8(ascii: "f"): return try expect("false", value: .bool(false))
        case UInt8(ascii: "n"): return try expect("null", value: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default:
            let scalar = currentScalar
            let hint = scalar == "\u{FEFF}" ? " (a byte order mark)" : ""
            throw failure("unexpected character \(VisibleText.name(of: scalar))\(hint)")
        }
    }

    private mutating func enterContainer() throws {
        depth += 1
        if depth > JSONValue.maximumDepth { throw failure("nesting deeper than \(JSONValue.maximumDepth) levels") }
    }

    /// The placeholder for a container nested too deeply, skipped up to its end; `nil` when
    /// the container at `position` is to be read.
    private mutating func skippedDeepContainer() throws -> JSONValue? {
        guard cutsDeepContainers, depth >= JSONValue.maximumDepth else { return nil }
        do {
            try cursor.skipValue(maxDepth: .max)
        } catch {
            position = bytes.count
            throw failure("unterminated container")  // the only problem past an opening bracket
        }
        cuts += 1
        return JSONValue.tooDeep
    }

    private mutating func parseObject() throws -> JSONValue {
        if let skipped = try skippedDeepContainer() { return skipped }
        try enterContainer()
        defer { depth -= 1 }
        let start = position
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object([:])
        }
        // Keys and values are gathered first and the dictionary is made once: much cheaper
        // than inserting member by member.
        var keys: [String] = []
        var values: [JSONValue] = []
        keys.reserveCapacity(4)
        values.reserveCapacity(4)
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after an object key") }
            position += 1
            skipWhitespace()
            keys.append(key)
            values.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                let duplicate = JSONValue.duplicateKey(in: keys)
                if let duplicate, options.contains(.rejectingDuplicateKeys) {
                    throw Failure(problem: .duplicateKey(duplicate), offset: start)
                }
                return .object(JSONValue.members(keys: keys, values: values, unique: duplicate == nil))
            default: throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        if let skipped = try skippedDeepContainer() { return skipped }
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        try readElements { value, _ in elements.append(value) }
        return .array(elements)
    }

    private mutating func parseString() throws -> String {
        do {
            return try cursor.readString()
        } catch {
            throw failure(stringProblem: error)
        }
    }

    private func failure(stringProblem problem: JSONStringProblem) -> Failure {
        switch problem {
        case .unterminated: return failure("unterminated string")
        case .controlCharacter:
            return failure("control character \(VisibleText.codePoint(Unicode.Scalar(bytes[position]))) in a string")
        case .invalidEscape:
            let scalar = currentScalar
            return failure(
                VisibleText.shows(scalar) ? "invalid escape '\\\(scalar)'" : "invalid escape: '\\' before \(VisibleText.codePoint(scalar))")
        case .incompleteUnicodeEscape: return failure("incomplete \\u escape")
        case .invalidUnicodeEscape: return failure("invalid \\u escape")
        case .notAString, .refusedEscape, .invalidUTF8: return failure("expected a string")  // not under the JSON policy
        }
    }

    private mutating func parseNumber() throws -> JSONValue {
        guard let number = cursor.scanNumber() else { throw failure("invalid number") }
        if !number.value.isFinite, options.contains(.rejectingInfiniteNumbers) {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[number.text]), as: UTF8.self)
            throw Failure(problem: .infiniteNumber(text), offset: number.text.lowerBound)
        }
        return .number(number.value)
    }
}
