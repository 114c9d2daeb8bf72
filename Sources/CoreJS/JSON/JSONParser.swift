// Over 300 lines: one recursive-descent parser over one byte buffer, kept whole so the
// grammar reads top to bottom.

/// A JSON parser over UTF-8 bytes (one pass, no intermediate copies of the input).
///
/// Callers go through `JSONValue(parsing:options:)` and `forEachElement(ofArrayUTF8:_:)` (JSONValueParsing.swift).
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var depth = 0
    /// Replace containers past ``JSONValue/maximumDepth`` by `"[Too deep]"` instead of failing.
    var cutsDeepContainers = false
    /// The checks beyond the grammar.
    var options: JSONParsingOptions = []

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

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
    private mutating func readElements(_ body: (JSONValue) throws -> Void) throws {
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try body(try parseValue())
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

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return
            }
        }
    }

    private mutating func expect(_ literal: StaticString, value: JSONValue) throws -> JSONValue {
        let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in text {
            guard current == byte else { throw failure("invalid literal, expected '\(literal)'") }
            position += 1
        }
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
        var open = 0
        var inString = false
        while let byte = current {
            position += 1
            if inString {
                if byte == UInt8(ascii: "\\") { position += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                open += 1
            } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                open -= 1
                if open == 0 { return JSONValue.tooDeep }
            }
        }
        throw failure("unterminated container")
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
        try readElements { elements.append($0) }
        return .array(elements)
    }

    private mutating func parseHexQuad() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value * 16 + UInt32(digit)
            position += 1
        }
        return value
    }

    mutating func parseString() throws -> String {
        position += 1
        let start = position
        // Fast path: no escapes, so the bytes are the string.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            position += 1
        }
        var result = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: result, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escape = current else { throw failure("unterminated string") }
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(escape)
                case UInt8(ascii: "b"): result.append(0x08)
                case UInt8(ascii: "f"): result.append(0x0C)
                case UInt8(ascii: "n"): result.append(0x0A)
                case UInt8(ascii: "r"): result.append(0x0D)
                case UInt8(ascii: "t"): result.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHexQuad()
                    if (0xD800...0xDBFF).contains(code), position + 1 < bytes.count,
                        bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                    {
                        let saved = position
                        position += 2
                        let low = try parseHexQuad()
                        if (0xDC00...0xDFFF).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            position = saved
                        }
                    }
                    result.append(contentsOf: String(Unicode.Scalar(code) ?? "\u{FFFD}").utf8)
                default:
                    position -= 1
                    let scalar = currentScalar
                    throw failure(
                        VisibleText.shows(scalar)
                            ? "invalid escape '\\\(scalar)'" : "invalid escape: '\\' before \(VisibleText.codePoint(scalar))")
                }
            case 0..<0x20:
                position -= 1
                throw failure("control character \(VisibleText.codePoint(Unicode.Scalar(byte))) in a string")
            default:
                result.append(byte)
            }
        }
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = position
        func digit(_ byte: UInt8?) -> UInt8? {
            guard let value = byte.map({ $0 &- UInt8(ascii: "0") }), value < 10 else { return nil }
            return value
        }
        let negative = current == UInt8(ascii: "-")
        if negative { position += 1 }
        guard let first = digit(current) else { throw failure("invalid number") }
        position += 1
        // Integers of up to 15 digits (the usual case) are summed up while they are read.
        var integer = Int(first)
        while first != 0, let next = digit(current) {
            integer = integer &* 10 &+ Int(next)
            position += 1
        }
        var isInteger = position - start - (negative ? 1 : 0) <= 15
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard digit(current) != nil else { throw failure("invalid number") }
            while digit(current) != nil { position += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard digit(current) != nil else { throw failure("invalid number") }
            while digit(current) != nil { position += 1 }
        }
        if isInteger {
            let magnitude = Double(integer)
            return .number(negative ? -magnitude : magnitude)  // "-0" is -0, as in JSON.parse
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let number = Double(text) else { throw failure("invalid number") }
        if !number.isFinite, options.contains(.rejectingInfiniteNumbers) {
            throw Failure(problem: .infiniteNumber(text), offset: start)
        }
        return .number(number)
    }
}
