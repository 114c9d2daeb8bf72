@_spi(JSONScanning) import CoreJS

/// Reads a JSON text piece by piece over its UTF-8 bytes, for documents nested deeper than a
/// ``JSONValue`` may be (``JSONValue/maximumDepth``) or than recursion could follow: the caller
/// keeps its own stack of the containers it is in, and ``skipValue()`` passes over a value of
/// any depth with a counter.
///
/// What is read is checked (keys, `:` and `,` where the caller asks for them, scalars parsed by
/// ``JSONValue``); a skipped value is only delimited (strings, brackets), not checked.
struct JSONScanner {
    private var cursor: JSONByteCursor

    init(_ bytes: UnsafeBufferPointer<UInt8>) { cursor = JSONByteCursor(bytes) }

    /// The next byte after whitespace, not consumed; nil at the end of the text.
    mutating func peek() -> UInt8? {
        cursor.skipWhitespace()
        return cursor.current
    }

    /// Whether `character` comes next (after whitespace).
    mutating func next(is character: Unicode.Scalar) -> Bool {
        peek() == UInt8(ascii: character)
    }

    /// Consumes `character` when it comes next; returns whether it did.
    @discardableResult
    mutating func take(_ character: Unicode.Scalar) -> Bool {
        cursor.skipWhitespace()
        return cursor.consume(UInt8(ascii: character))
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
        cursor.skipWhitespace()
        let start = cursor.position
        try skipValue()
        do {
            return try JSONValue(parsingUTF8: UnsafeBufferPointer(rebasing: cursor.bytes[start..<cursor.position]))
        } catch let error as JSONParseError {
            throw JSONParseError(reason: error.reason, column: column(at: start) + error.column - 1)
        }
    }

    /// Consumes the next value, however deeply it nests.
    mutating func skipValue() throws {
        do {
            try cursor.skipValue(maxDepth: .max)
        } catch {
            switch error {
            case .endOfText: throw failure("unexpected end of text")
            case .unterminatedString: throw failure("unterminated string")
            case let .unexpectedClose(byte): throw failure("unexpected '\(Unicode.Scalar(byte))'")
            case .expectedValue, .tooDeep: throw failure("expected a value")  // (no limit here)
            }
        }
    }

    /// Throws unless only whitespace is left.
    mutating func end() throws {
        if peek() != nil { throw failure("unexpected text after the JSON value") }
    }

    /// The 1-based column (in Unicode scalars) of byte `offset`.
    private func column(at offset: Int) -> Int {
        let bytes = cursor.bytes
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<min(offset, bytes.count)]), as: UTF8.self).unicodeScalars.count + 1
    }

    private func failure(_ reason: String) -> JSONParseError {
        JSONParseError(reason: reason, column: column(at: cursor.position))
    }
}
