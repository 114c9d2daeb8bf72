@_spi(JSONScanning) import CoreJS

/// Finds each result's value in the JSON text JavaScript wrote for a batch
/// (`[value, …]`, see ``PendingResults``) without decoding it, when
/// every value is already written exactly as ``JSONValue/jsonText`` would write it after
/// decoding: then the text can be passed on as it is.
///
/// `JSON.stringify` and ``JSONValue/jsonText`` agree on nearly everything (compact, members
/// in order, the same escapes and number layout). The scanner accepts only a strict subset
/// of JSON in which they provably agree, and gives up on the whole batch (the caller then
/// decodes it as before) at anything else: whitespace, an escape other than `\" \\ \n \r
/// \t \b \f` or a lowercase `\u00XX` of a control character (a lone surrogate is written
/// `\udXXX` by JavaScript and U+FFFD after decoding), bytes that are not UTF-8, a number
/// whose text is not the one ``JSONValue/jsonText`` writes for it, an object with two or
/// more keys of which one is not ASCII (decoding merges keys that are canonically
/// equivalent, such as `"K"` and `"\u212A"`), nesting near the depth at which decoding cuts
/// containers, or any grammar it does not expect.
struct ResultTextScanner {
    /// Nesting (inside one value) past which the scanner gives up: well below
    /// ``JSONValue/maximumDepth``, where decoding replaces containers by `"[Too deep]"`.
    static let depthLimit = JSONValue.maximumDepth - 12

    private var cursor: JSONByteCursor

    private init(bytes: UnsafeRawBufferPointer) {
        cursor = JSONByteCursor(bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Where each value of `text` is, or `nil` when some value would not be written back the same.
    static func scan(_ text: UnsafeRawBufferPointer) -> [Range<Int>]? {
        var scanner = ResultTextScanner(bytes: text)
        return scanner.scanArray()
    }

    private mutating func consume(_ byte: UInt8) -> Bool { cursor.consume(byte) }

    private mutating func scanArray() -> [Range<Int>]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var values: [Range<Int>] = []
        if consume(UInt8(ascii: "]")) { return cursor.atEnd ? values : nil }
        values.reserveCapacity(cursor.bytes.count / 40)
        while true {
            let start = cursor.position
            guard scanValue(depth: 0) else { return nil }
            values.append(start..<cursor.position)
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")), cursor.atEnd else { return nil }
            return values
        }
    }

    private mutating func scanValue(depth: Int) -> Bool {
        switch cursor.current {
        case UInt8(ascii: "\"")?: return cursor.scanStringBody(.written) != nil
        case UInt8(ascii: "{")?: return depth < Self.depthLimit && scanObject(depth: depth + 1)
        case UInt8(ascii: "[")?: return depth < Self.depthLimit && scanNestedArray(depth: depth + 1)
        case UInt8(ascii: "t")?: return cursor.consume("true")
        case UInt8(ascii: "f")?: return cursor.consume("false")
        case UInt8(ascii: "n")?: return cursor.consume("null")
        case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?: return scanNumber()
        default: return false
        }
    }

    private mutating func scanNestedArray(depth: Int) -> Bool {
        cursor.position += 1
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            guard scanValue(depth: depth) else { return false }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]"))
        }
    }

    private mutating func scanObject(depth: Int) -> Bool {
        cursor.position += 1
        if consume(UInt8(ascii: "}")) { return true }
        var members = 0
        var nonASCIIKey = false
        while true {
            guard let key = cursor.scanStringBody(.written), consume(UInt8(ascii: ":")), scanValue(depth: depth) else { return false }
            members += 1
            nonASCIIKey = nonASCIIKey || !key.isASCII
            if members > 1, nonASCIIKey { return false }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    /// A number whose text is the one ``JSONValue/jsonText`` writes for its value.
    private mutating func scanNumber() -> Bool {
        guard let number = cursor.scanNumber() else { return false }
        let text = UnsafeBufferPointer(rebasing: cursor.bytes[number.text])
        if number.isShortInteger {
            // What jsonText writes for an integer below 2^53: its digits (JSON's grammar
            // has no leading zero), no sign for zero.
            return !(number.value == 0 && number.value.sign == .minus)
        }
        var written = JSONValue.number(number.value).jsonText
        return written.withUTF8 { $0.elementsEqual(text) }
    }
}
