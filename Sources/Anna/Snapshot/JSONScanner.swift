import CoreJS

/// Reads a JSON text piece by piece over its UTF-8 bytes, for documents nested deeper than a
/// ``JSONValue`` may be (``JSONValue/maximumDepth``) or than recursion could follow: the caller
/// keeps its own stack of the containers it is in, and ``skipValue()`` passes over a value of
/// any depth with a counter.
///
/// What is read is checked (keys, `:` and `,` where the caller asks for them, scalars parsed by
/// ``JSONValue``); a skipped value is only delimited (strings, brackets), not checked.
struct JSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The next byte after whitespace, not consumed; nil at the end of the text.
    mutating func peek() -> UInt8? {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return bytes[position]
            }
        }
        return nil
    }

    /// Whether `character` comes next (after whitespace).
    mutating func next(is character: Unicode.Scalar) -> Bool {
        peek() == UInt8(ascii: character)
    }

    /// Consumes `character` when it comes next; returns whether it did.
    @discardableResult
    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard next(is: character) else { return false }
        position += 1
        return true
    }

    /// Consumes `character`, or throws `expected <what>`.
    mutating func expect(_ character: Unicode.Scalar, _ what: String) throws {
        guard take(character) else { throw failure("expected \(what)") }
    }

    /// Consumes an object key and its `:`.
    mutating func key() throws -> String {
        guard next(is: "\""), let key = try value().stringValue else { throw failure("expected a string key") }
        try expect(":", "':' after an object key")
        return key
    }

    /// Consumes the next value and returns it parsed (a container nested within ``JSONValue``'s limit).
    mutating func value() throws -> JSONValue {
        _ = peek()
        let start = position
        try skipValue()
        do {
            return try JSONValue(parsingUTF8: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        } catch let error as JSONParseError {
            throw JSONParseError(reason: error.reason, column: column(at: start) + error.column - 1)
        }
    }

    /// Consumes the next value, however deeply it nests.
    mutating func skipValue() throws {
        var open = 0
        repeat {
            guard let byte = peek() else { throw failure("unexpected end of text") }
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                open += 1
                position += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                guard open > 0 else { throw failure("unexpected '\(Unicode.Scalar(byte))'") }
                open -= 1
                position += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                guard open > 0 else { throw failure("expected a value") }
                position += 1
            case UInt8(ascii: "\""):
                try skipString()
            default:  // a number or a literal: up to the next delimiter
                position += 1
                while position < bytes.count, !Self.delimiters.contains(bytes[position]) { position += 1 }
            }
        } while open > 0
    }

    /// Throws unless only whitespace is left.
    mutating func end() throws {
        if peek() != nil { throw failure("unexpected text after the JSON value") }
    }

    private static let delimiters: Set<UInt8> = Set(" \t\n\r,:[]{}\"".utf8)

    private mutating func skipString() throws {
        position += 1
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"): position += 2
            default: position += 1
            }
        }
        throw failure("unterminated string")
    }

    /// The 1-based column (in Unicode scalars) of byte `offset`.
    private func column(at offset: Int) -> Int {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[..<min(offset, bytes.count)]), as: UTF8.self).unicodeScalars.count + 1
    }

    private func failure(_ reason: String) -> JSONParseError {
        JSONParseError(reason: reason, column: column(at: position))
    }
}
