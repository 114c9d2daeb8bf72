import CoreJS

/// Finds each result's value in the JSON text JavaScript wrote for a batch
/// (`[operation, metaID, value, …]`, see ``PendingResults``) without decoding it, when
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

    /// Each result: where its value's text is, and its meta ID.
    struct Element {
        var value: Range<Int>
        var metaID: Int
    }

    private let bytes: UnsafeRawBufferPointer
    private var at = 0

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The results of `text`, or `nil` when some value would not be written back the same.
    static func scan(_ text: UnsafeRawBufferPointer) -> [Element]? {
        var scanner = ResultTextScanner(bytes: text)
        return scanner.scanArray()
    }

    private var current: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        at += 1
        return true
    }

    private mutating func scanArray() -> [Element]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var elements: [Element] = []
        if consume(UInt8(ascii: "]")) { return at == bytes.count ? elements : nil }
        elements.reserveCapacity(bytes.count / 48)
        while true {
            guard scanInteger() != nil, consume(UInt8(ascii: ",")), let metaID = scanInteger(), consume(UInt8(ascii: ",")) else {
                return nil
            }
            let start = at
            guard scanValue(depth: 0) else { return nil }
            elements.append(Element(value: start..<at, metaID: metaID))
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")), at == bytes.count else { return nil }
            return elements
        }
    }

    /// A small integer (an operation offset or a meta ID, possibly -1).
    private mutating func scanInteger() -> Int? {
        let negative = consume(UInt8(ascii: "-"))
        var value = 0
        let start = at
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), at - start < 12 {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            at += 1
        }
        guard at > start, let after = current, after == UInt8(ascii: ",") else { return nil }
        if at - start > 1, bytes[start] == UInt8(ascii: "0") { return nil }
        return negative ? -value : value
    }

    private mutating func scanValue(depth: Int) -> Bool {
        switch current {
        case UInt8(ascii: "\"")?: return scanString() != nil
        case UInt8(ascii: "{")?: return depth < Self.depthLimit && scanObject(depth: depth + 1)
        case UInt8(ascii: "[")?: return depth < Self.depthLimit && scanNestedArray(depth: depth + 1)
        case UInt8(ascii: "t")?: return scanLiteral("true")
        case UInt8(ascii: "f")?: return scanLiteral("false")
        case UInt8(ascii: "n")?: return scanLiteral("null")
        case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?: return scanNumber()
        default: return false
        }
    }

    private mutating func scanLiteral(_ literal: StaticString) -> Bool {
        let text = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard at + text.count <= bytes.count, UnsafeRawBufferPointer(rebasing: bytes[at..<at + text.count]).elementsEqual(text)
        else { return false }
        at += text.count
        return true
    }

    private mutating func scanNestedArray(depth: Int) -> Bool {
        at += 1
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            guard scanValue(depth: depth) else { return false }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]"))
        }
    }

    private mutating func scanObject(depth: Int) -> Bool {
        at += 1
        if consume(UInt8(ascii: "}")) { return true }
        var members = 0
        var nonASCIIKey = false
        while true {
            guard let keyIsASCII = scanString(), consume(UInt8(ascii: ":")), scanValue(depth: depth) else { return false }
            members += 1
            nonASCIIKey = nonASCIIKey || !keyIsASCII
            if members > 1, nonASCIIKey { return false }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    /// A string written as ``JSONValue/jsonText`` writes it; returns whether it is ASCII,
    /// or `nil` when it is not such a string.
    private mutating func scanString() -> Bool? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = at
        var ascii = true
        while true {
            // Plain ASCII text eight bytes at a time (see ByteWords.specialBytes).
            while bytes.count - at >= 8 {
                let special = ByteWords.specialBytes(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
                if special != 0 {
                    at += special.trailingZeroBitCount >> 3
                    break
                }
                at += 8
            }
            guard let byte = current else { return nil }
            switch byte {
            case UInt8(ascii: "\""):
                at += 1
                if !ascii, !UTF8Validation.isValid(UnsafeRawBufferPointer(rebasing: bytes[start..<at - 1])) { return nil }
                return ascii
            case UInt8(ascii: "\\"):
                guard scanEscape() else { return nil }
            case 0..<0x20:
                return nil
            default:
                if byte >= 0x80 { ascii = false }
                at += 1
            }
        }
    }

    /// `\" \\ \n \r \t \b \f`, or `\u00XX` (lowercase) of another control character.
    private mutating func scanEscape() -> Bool {
        guard at + 1 < bytes.count else { return false }
        switch bytes[at + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"), UInt8(ascii: "b"),
            UInt8(ascii: "f"):
            at += 2
            return true
        case UInt8(ascii: "u"):
            guard at + 6 <= bytes.count, bytes[at + 2] == UInt8(ascii: "0"), bytes[at + 3] == UInt8(ascii: "0") else { return false }
            guard let high = Self.lowercaseHex(bytes[at + 4]), let low = Self.lowercaseHex(bytes[at + 5]) else { return false }
            let code = high * 16 + low
            guard code < 0x20, ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(code) else { return false }
            at += 6
            return true
        default:
            return false
        }
    }

    private static func lowercaseHex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// A number whose text is the one ``JSONValue/jsonText`` writes for its value.
    private mutating func scanNumber() -> Bool {
        let start = at
        let negative = consume(UInt8(ascii: "-"))
        let digitsStart = at
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { at += 1 }
        let digits = at - digitsStart
        guard digits > 0 else { return false }
        var plainInteger = digits <= 15
        if current == UInt8(ascii: ".") || current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            plainInteger = false
            while let byte = current,
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
                    || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            {
                at += 1
            }
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<at])
        if plainInteger {
            // What jsonText writes for an integer below 2^53: its digits, no sign for zero.
            let leadingZero = digits > 1 && bytes[digitsStart] == UInt8(ascii: "0")
            let negativeZero = negative && digits == 1 && bytes[digitsStart] == UInt8(ascii: "0")
            return !leadingZero && !negativeZero
        }
        guard let number = Double(String(decoding: text, as: UTF8.self)) else { return false }
        var written = JSONValue.number(number).jsonText
        return written.withUTF8 { UnsafeRawBufferPointer($0).elementsEqual(text) }
    }
}
