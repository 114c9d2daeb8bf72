/// Why ``JSONByteCursor/skipValue(maxDepth:)`` stopped; the cursor's position says where.
@_spi(JSONScanning) public enum JSONSkipProblem: Error, Equatable {
    /// The text ends before the value does (position: the end).
    case endOfText
    /// The text ends inside a string (position: the end).
    case unterminatedString
    /// A closing bracket where a value is due (position: at it).
    case unexpectedClose(UInt8)
    /// A `,` or `:` where a value is due (position: at it).
    case expectedValue
    /// A container nested deeper than the limit (position: its opening bracket).
    case tooDeep
}

@_spi(JSONScanning) extension JSONByteCursor {
    /// Skips the next value (after whitespace), however it nests up to `maxDepth` levels of
    /// containers, with a counter instead of recursion. The value is only delimited:
    /// strings (``JSONEscapePolicy/unchecked``), brackets counted without matching their
    /// kinds, and a number or literal taken up to the next whitespace, bracket, quote, `,`
    /// or `:`; its grammar is not checked.
    @inlinable
    public mutating func skipValue(maxDepth: Int) throws(JSONSkipProblem) {
        var open = 0
        repeat {
            skipWhitespace()
            guard position < bytes.count else { throw .endOfText }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                guard open < maxDepth else { throw .tooDeep }
                open += 1
                position += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                guard open > 0 else { throw .unexpectedClose(byte) }
                open -= 1
                position += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                guard open > 0 else { throw .expectedValue }
                position += 1
            case UInt8(ascii: "\""):
                do {
                    _ = try scanString(.unchecked)
                } catch {
                    throw .unterminatedString  // the only problem of an unchecked string
                }
            default:
                position += 1
                while position < bytes.count, !Self.isDelimiter(bytes[position]) { position += 1 }
            }
        } while open > 0
    }

    /// Whether `byte` ends a number or literal that is skipped.
    @inlinable @inline(__always)
    static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","), UInt8(ascii: ":"),
            UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\""):
            return true
        default:
            return false
        }
    }
}
