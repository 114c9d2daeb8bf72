/// A number as ``JSONByteCursor/scanNumber()`` read it.
@_spi(JSONScanning) public struct JSONNumber: Equatable {
    /// Its value (infinite for a text such as `1e400`, as in `JSON.parse`).
    public var value: Double
    /// Whether it is an integer of up to 15 digits with no fraction or exponent: summed up
    /// as it was read, and held exactly by JavaScript.
    public var isShortInteger: Bool
    /// Where its text is.
    public var text: Range<Int>

    /// A number read from `text`.
    @inlinable
    public init(value: Double, isShortInteger: Bool, text: Range<Int>) {
        self.value = value
        self.isShortInteger = isShortInteger
        self.text = text
    }
}

@_spi(JSONScanning) extension JSONByteCursor {
    /// Reads a number in JSON's grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`):
    /// integers of up to 15 digits are summed up, eight digits at a time, others go through
    /// `Double(String)`. `nil` when the grammar is not met, with ``position`` where a digit
    /// was due.
    @inlinable @inline(__always)
    public mutating func scanNumber() -> JSONNumber? {
        let start = position
        let negative = consume(UInt8(ascii: "-"))
        guard position < bytes.count else { return nil }
        let first = bytes[position] &- UInt8(ascii: "0")
        guard first < 10 else { return nil }
        position += 1
        var integer = Int(first)
        if first != 0 {
            if bytes.count - position >= 8, let eight = JSONByteWords.eightDigits(JSONByteWords.word(bytes, at: position)) {
                integer = integer &* 100_000_000 &+ eight
                position += 8
            }
            while position < bytes.count {
                let next = bytes[position] &- UInt8(ascii: "0")
                guard next < 10 else { break }
                integer = integer &* 10 &+ Int(next)
                position += 1
            }
        }
        var isInteger = position - start - (negative ? 1 : 0) <= 15
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            guard skipDigits() else { return nil }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard skipDigits() else { return nil }
        }
        if isInteger {
            let magnitude = Double(integer)
            // "-0" is -0, as in JSON.parse.
            return JSONNumber(value: negative ? -magnitude : magnitude, isShortInteger: true, text: start..<position)
        }
        guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)) else {
            return nil
        }
        return JSONNumber(value: value, isShortInteger: false, text: start..<position)
    }
}
