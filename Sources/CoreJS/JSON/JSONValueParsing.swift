// The public face of parsing: `JSONValue(parsing:)`, the streaming `forEachElement`, and the
// error both throw. The parser itself is `JSONParser` (JSONParser.swift).

/// Why a JSON text could not be parsed, with the 1-based column where it went wrong.
public struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What went wrong: the text's grammar, or a check of ``JSONParsingOptions``.
    public enum Kind: Sendable, Equatable {
        /// The text is not JSON.
        case syntax
        /// An object has a key twice (``JSONParsingOptions/rejectingDuplicateKeys``).
        case duplicateKey
        /// A number is too large for a double (``JSONParsingOptions/rejectingInfiniteNumbers``).
        case infiniteNumber
    }

    /// What is wrong, e.g. `expected ':' after an object key`, or `duplicate key 'a' in 'b.c'`
    /// (a check of the options names the place by its keys: `properties.tags[2]`).
    public var reason: String
    /// The 1-based column (in Unicode scalars) where parsing stopped.
    public var column: Int
    /// Whether the grammar or a check of the options refused the text.
    public var kind: Kind

    /// Creates a parse error.
    public init(reason: String, column: Int, kind: Kind = .syntax) {
        self.reason = reason
        self.column = column
        self.kind = kind
    }

    /// `column N: reason`.
    public var description: String { "column \(column): \(reason)" }
}

/// Checks beyond JSON's grammar that a reader may ask of ``JSONValue/init(parsing:options:)``.
/// Without them a text parses as `JSON.parse` reads it.
public struct JSONParsingOptions: OptionSet, Sendable {
    /// The options as bits.
    public let rawValue: Int

    /// Options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Refuse an object that has a key twice (by default the last value wins, in the first
    /// key's place, as in `JSON.parse`).
    public static let rejectingDuplicateKeys = JSONParsingOptions(rawValue: 1 << 0)
    /// Refuse a number too large for a double, such as `1e400` (by default it is infinity,
    /// as in `JSON.parse`, which JSON text cannot carry back out: it is written `null`).
    public static let rejectingInfiniteNumbers = JSONParsingOptions(rawValue: 1 << 1)
}

extension JSONValue {
    /// Parses one JSON text, keeping the order of object keys.
    ///
    /// - Parameter options: checks beyond the grammar; none by default.
    /// - Throws: ``JSONParseError`` naming the column of the first problem.
    public init(parsing text: String, options: JSONParsingOptions = []) throws {
        var text = text
        self = try text.withUTF8 { try JSONValue(parsingUTF8: $0, options: options) }
    }

    /// Parses one JSON text given as UTF-8 bytes, keeping the order of object keys.
    ///
    /// - Parameter options: checks beyond the grammar; none by default.
    /// - Throws: ``JSONParseError`` naming the column of the first problem.
    public init(parsingUTF8 bytes: UnsafeBufferPointer<UInt8>, options: JSONParsingOptions = []) throws {
        self = try JSONParser.run(on: bytes, options: options) { try $0.parseDocument() }
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

    /// As ``forEachElement(ofArrayUTF8:_:)``, with each element's own bytes in `bytes` (the
    /// element's JSON text as written), or nil when a container in it was cut (the bytes are
    /// not the element's value then).
    public static func forEachElementText(
        ofArrayUTF8 bytes: UnsafeBufferPointer<UInt8>, _ body: (consuming JSONValue, UnsafeBufferPointer<UInt8>?) throws -> Void
    ) throws {
        try JSONParser.run(on: bytes, cuttingDeepContainers: true) { try $0.parseArrayElementTexts(body) }
    }
}
