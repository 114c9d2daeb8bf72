// The public face of parsing: `JSONValue(parsing:)`, the streaming `forEachElement`, and the
// error both throw. The parser itself is `JSONParser` (JSONParser.swift).

/// Why a JSON text could not be parsed, with the 1-based column where it went wrong.
public struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What is wrong, e.g. `expected ':' after an object key`.
    public var reason: String
    /// The 1-based column (in Unicode scalars) where parsing stopped.
    public var column: Int

    /// Creates a parse error.
    public init(reason: String, column: Int) {
        self.reason = reason
        self.column = column
    }

    /// `column N: reason`.
    public var description: String { "column \(column): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON text, keeping the order of object keys.
    ///
    /// - Throws: ``JSONParseError`` naming the column of the first problem.
    public init(parsing text: String) throws {
        var text = text
        self = try text.withUTF8 { try JSONValue(parsingUTF8: $0) }
    }

    /// Parses one JSON text given as UTF-8 bytes, keeping the order of object keys.
    ///
    /// - Throws: ``JSONParseError`` naming the column of the first problem.
    public init(parsingUTF8 bytes: UnsafeBufferPointer<UInt8>) throws {
        self = try JSONParser.run(on: bytes) { try $0.parseDocument() }
    }
}

extension JSONValue {
    /// Calls `body` with each element of a JSON array given as UTF-8 bytes, in order, without
    /// building the array: for large arrays of results.
    ///
    /// Elements are cut as the conversion from JavaScript cuts values: a container nested
    /// ``maximumDepth`` levels below the element is replaced by `"[Too deep]"` (and skipped).
    ///
    /// - Throws: ``JSONParseError`` (with the column) when the text is not one JSON array.
    public static func forEachElement(
        ofArrayUTF8 bytes: UnsafeBufferPointer<UInt8>, _ body: (JSONValue) throws -> Void
    ) throws {
        try JSONParser.run(on: bytes, cuttingDeepContainers: true) { try $0.parseArrayElements(body) }
    }
}
