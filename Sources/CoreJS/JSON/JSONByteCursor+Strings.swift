/// Which escapes a string may hold, and what else its body is checked for, when
/// ``JSONByteCursor/scanString(_:)`` reads it.
@_spi(JSONScanning) public enum JSONEscapePolicy: Sendable {
    /// No escape at all: the bytes between the quotes are the string. Control characters
    /// and bytes that are not UTF-8 are refused too. (The fast line path of an event stream:
    /// whatever it refuses goes to the full parser.)
    case none
    /// Only the escapes ``JSONValue/jsonText`` writes: `\" \\ \n \r \t \b \f`, and a
    /// lowercase `\u00XX` of another control character. Control characters and bytes that
    /// are not UTF-8 are refused. (Result texts passed on as JavaScript wrote them.)
    case written
    /// Every escape of JSON (`\" \\ \/ \b \f \n \r \t \uXXXX`); control characters are
    /// refused, bytes that are not UTF-8 are left for decoding to replace. (`JSONParser`.)
    case json
    /// Nothing checked: a backslash takes the next byte along, whatever it is; only the
    /// closing quote is found. (Skipping a value.)
    case unchecked
}

/// Where a string's body is, as ``JSONByteCursor/scanString(_:)`` found it.
@_spi(JSONScanning) public struct JSONStringBody: Equatable {
    /// The bytes between the quotes.
    public var range: Range<Int>
    /// Whether every byte is ASCII.
    public var isASCII: Bool
    /// Whether it holds an escape (its bytes are not its text).
    public var hasEscapes: Bool

    /// A body at `range`.
    @inlinable
    public init(range: Range<Int>, isASCII: Bool, hasEscapes: Bool) {
        self.range = range
        self.isASCII = isASCII
        self.hasEscapes = hasEscapes
    }
}

/// Why ``JSONByteCursor/scanString(_:)`` refused a string; the cursor's position says where.
@_spi(JSONScanning) public enum JSONStringProblem: Error, Equatable {
    /// No quote is next (position: unchanged).
    case notAString
    /// The text ends inside the string (position: the end).
    case unterminated
    /// A control character (position: at it).
    case controlCharacter
    /// A backslash before a character no escape starts with (position: that character).
    case invalidEscape
    /// `\u` with fewer than four characters after it (position: the first of them).
    case incompleteUnicodeEscape
    /// `\u` followed by something other than four hex digits (position: the first that is not one).
    case invalidUnicodeEscape
    /// An escape of JSON the policy does not take (position: the backslash).
    case refusedEscape
    /// Bytes that are not UTF-8 (position: after the closing quote).
    case invalidUTF8
}

@_spi(JSONScanning) extension JSONByteCursor {
    /// Reads a string from its opening quote (which must be next) to its closing one,
    /// checking its body under `policy`; plain text goes eight bytes at a time.
    @inlinable @inline(__always)
    public mutating func scanString(_ policy: JSONEscapePolicy) throws(JSONStringProblem) -> JSONStringBody {
        guard consume(UInt8(ascii: "\"")) else { throw .notAString }
        let start = position
        var isASCII = true
        var hasEscapes = false
        while true {
            skipPlainText()
            guard position < bytes.count else { throw .unterminated }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let body = start..<position
                position += 1
                if !isASCII, policy == .none || policy == .written,
                    !JSONByteWords.isValidUTF8(UnsafeBufferPointer(rebasing: bytes[body]))
                {
                    throw .invalidUTF8
                }
                return JSONStringBody(range: body, isASCII: isASCII, hasEscapes: hasEscapes)
            }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try scanEscape(policy)
            } else if byte < 0x20, policy != .unchecked {
                throw .controlCharacter
            } else {
                if byte >= 0x80 { isASCII = false }
                position += 1
            }
        }
    }

    /// ``scanString(_:)``, `nil` for a refused string (for readers that give the line to
    /// another reader then, whatever the problem).
    @inlinable @inline(__always)
    public mutating func scanStringBody(_ policy: JSONEscapePolicy) -> JSONStringBody? {
        do {
            return try scanString(policy)
        } catch {
            return nil
        }
    }

    /// One escape, from its backslash (at ``position``) on.
    @inlinable
    mutating func scanEscape(_ policy: JSONEscapePolicy) throws(JSONStringProblem) {
        guard position + 1 < bytes.count else {
            position = bytes.count
            throw .unterminated
        }
        let escape = bytes[position + 1]
        switch policy {
        case .none:
            throw .refusedEscape
        case .unchecked:
            position += 2
        case .written:
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"), UInt8(ascii: "b"),
                UInt8(ascii: "f"):
                position += 2
            case UInt8(ascii: "u"):
                // \u00XX, lowercase, of a control character that has no short escape.
                guard position + 6 <= bytes.count, bytes[position + 2] == UInt8(ascii: "0"), bytes[position + 3] == UInt8(ascii: "0"),
                    let high = Self.lowercaseHexDigit(bytes[position + 4]), let low = Self.lowercaseHexDigit(bytes[position + 5])
                else { throw .refusedEscape }
                let code = high &* 16 &+ low
                guard code < 0x20, code != 0x08, code != 0x09, code != 0x0A, code != 0x0C, code != 0x0D else { throw .refusedEscape }
                position += 6
            default:
                throw .refusedEscape
            }
        case .json:
            position += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                UInt8(ascii: "r"), UInt8(ascii: "t"):
                position += 1
            case UInt8(ascii: "u"):
                position += 1
                _ = try readHexQuad()
            default:
                throw .invalidEscape
            }
        }
    }

    /// The four hex digits of a `\u` escape (at ``position``), as a number.
    @inlinable
    mutating func readHexQuad() throws(JSONStringProblem) -> UInt32 {
        guard position + 4 <= bytes.count else { throw .incompleteUnicodeEscape }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexDigit(bytes[position]) else { throw .invalidUnicodeEscape }
            value = value &* 16 &+ digit
            position += 1
        }
        return value
    }

    @inlinable @inline(__always)
    static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    @inlinable @inline(__always)
    static func lowercaseHexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// Reads a string (its opening quote next) under ``JSONEscapePolicy/json`` and decodes
    /// it: escapes resolved (a `\uD83D\uDE00` pair joined, a lone surrogate U+FFFD), bytes
    /// that are not UTF-8 replaced by U+FFFD.
    public mutating func readString() throws(JSONStringProblem) -> String {
        let body = try scanString(.json)
        let text = UnsafeBufferPointer(rebasing: bytes[body.range])
        guard body.hasEscapes else { return String(decoding: text, as: UTF8.self) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(text.count)
        var escapes = JSONByteCursor(text)
        while let byte = escapes.current {
            escapes.position += 1
            guard byte == UInt8(ascii: "\\"), let escape = escapes.current else {
                decoded.append(byte)
                continue
            }
            escapes.position += 1
            switch escape {
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"): decoded.append(contentsOf: String(escapes.unicodeEscape()).utf8)
            default: decoded.append(escape)  // \" \\ \/
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The character of a checked `\u` escape whose digits are next, joined with a second
    /// escape that completes a surrogate pair; U+FFFD for a lone surrogate.
    private mutating func unicodeEscape() -> Unicode.Scalar {
        var code = checkedHexQuad(at: position)
        position += 4
        if (0xD800...0xDBFF).contains(code), position + 5 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
            bytes[position + 1] == UInt8(ascii: "u")
        {
            let low = checkedHexQuad(at: position + 2)
            if (0xDC00...0xDFFF).contains(low) {
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                position += 6
            }
        }
        return Unicode.Scalar(code) ?? "\u{FFFD}"
    }

    /// The four hex digits at `offset` of a string ``scanString(_:)`` checked.
    private func checkedHexQuad(at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 &* 16 &+ (Self.hexDigit($1) ?? 0) }
    }
}
