/// A position in one line's bytes, with the token scans of the fast line path
/// (``EventStreamLineDecoder``): strict, allocation-free, and a word at a time where a byte
/// at a time would dominate (the bytes of a string, the digits of a number).
///
/// Every scan returns `nil` (or `false`) for input it does not take as it is; where it stops
/// then does not matter, as the whole line goes to the full parser.
struct LineCursor {
    let base: UnsafePointer<UInt8>
    let count: Int
    var at = 0

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    /// The byte at ``at``, or 0 past the end (a byte no rule accepts where a token is due).
    @inline(__always)
    var current: UInt8 { at < count ? base[at] : 0 }

    /// Whether every byte was read.
    var atEnd: Bool { at == count }

    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    @inline(__always)
    mutating func skipWhitespace() {
        while at < count {
            let byte = base[at]
            guard byte <= UInt8(ascii: " "),
                byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
            else { return }
            at += 1
        }
    }

    /// Steps over `byte` when it is next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        guard at < count, base[at] == byte else { return false }
        at += 1
        return true
    }

    /// Steps over `literal` (`true`, `false`, `null`) when it is next.
    @inline(__always)
    mutating func consume(_ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard count - at >= length, ByteWords.equal(base + at, count: length, literal) else { return false }
        at += length
        return true
    }

    /// The bytes between the quotes of a string (the opening one is next) without escapes or
    /// control characters, checked to be UTF-8.
    mutating func scanString() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = at
        var index = at
        var ascii = true
        while true {
            // Eight bytes at a time up to the first that is not plain ASCII text.
            while count - index >= 8 {
                let special = ByteWords.specialBytes(UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
                if special != 0 {
                    index += special.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < count else { return nil }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                at = index + 1
                guard ascii || UTF8Validation.isValid(UnsafeRawBufferPointer(start: base + start, count: index - start)) else { return nil }
                return start..<index
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
    }

    /// A number read as `JSONParser` reads it: integers of up to 15 digits summed up, others
    /// through `Double(String)`; `nil` for a bad or infinite one. `isShortInteger` tells the
    /// first kind, which JavaScript holds exactly.
    mutating func scanNumber() -> (value: Double, isShortInteger: Bool)? {
        let start = at
        let negative = consume(UInt8(ascii: "-"))
        guard at < count else { return nil }
        let first = base[at] &- UInt8(ascii: "0")
        guard first < 10 else { return nil }
        at += 1
        var integer = Int(first)
        if first != 0 {
            if count - at >= 8, let eight = ByteWords.eightDigits(UInt64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self))) {
                integer = integer &* 100_000_000 &+ eight
                at += 8
            }
            while at < count {
                let next = base[at] &- UInt8(ascii: "0")
                guard next < 10 else { break }
                integer = integer &* 10 &+ Int(next)
                at += 1
            }
        }
        var isInteger = at - start - (negative ? 1 : 0) <= 15
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            guard skipDigits() else { return nil }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            at += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { at += 1 }
            guard skipDigits() else { return nil }
        }
        if isInteger {
            let magnitude = Double(integer)
            return (negative ? -magnitude : magnitude, true)
        }
        let text = UnsafeRawBufferPointer(start: base + start, count: at - start)
        guard let number = Double(String(decoding: text, as: UTF8.self)), number.isFinite else { return nil }
        return (number, false)
    }

    /// Skips one or more digits; `false` when there is none.
    @inline(__always)
    mutating func skipDigits() -> Bool {
        let start = at
        while at < count, base[at] &- UInt8(ascii: "0") < 10 { at += 1 }
        return at > start
    }
}
