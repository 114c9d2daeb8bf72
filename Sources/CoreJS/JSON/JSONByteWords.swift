/// Word-at-a-time byte tests for ``JSONByteCursor``'s hot loops: comparisons of short byte
/// strings as a few word loads instead of a call to `memcmp`, tests of eight bytes at once
/// (plain string text, digits), and the UTF-8 check of a string body that is not ASCII.
@_spi(JSONScanning) public enum JSONByteWords {
    /// Whether the `count` bytes at `first` and at `second` are the same.
    @inlinable @inline(__always)
    public static func equal(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Bool {
        // Two overlapping loads cover every length from one word's size to twice it.
        switch count {
        case 0: return true
        case 1: return first.load(as: UInt8.self) == second.load(as: UInt8.self)
        case 2...3: return sameEnds(first, second, count: count, as: UInt16.self)
        case 4...7: return sameEnds(first, second, count: count, as: UInt32.self)
        case 8...16: return sameEnds(first, second, count: count, as: UInt64.self)
        default:
            for offset in 0..<count where first.load(fromByteOffset: offset, as: UInt8.self) != second.load(fromByteOffset: offset, as: UInt8.self) {
                return false
            }
            return true
        }
    }

    /// Whether the `count` bytes at `bytes` are those of `text`.
    @inlinable @inline(__always)
    public static func equal(_ bytes: UnsafeRawPointer, count: Int, _ text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && equal(bytes, UnsafeRawPointer(text.utf8Start), count: count)
    }

    @inlinable @inline(__always)
    static func sameEnds<Word: FixedWidthInteger>(
        _ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int, as _: Word.Type
    ) -> Bool {
        let last = count - MemoryLayout<Word>.size
        return first.loadUnaligned(as: Word.self) == second.loadUnaligned(as: Word.self)
            && first.loadUnaligned(fromByteOffset: last, as: Word.self) == second.loadUnaligned(fromByteOffset: last, as: Word.self)
    }

    /// The eight bytes at `offset` of `bytes` as one word, the first in the low byte (for
    /// ``specialBytes(_:)`` and ``eightDigits(_:)``); at least eight bytes must be there.
    @inlinable @inline(__always)
    public static func word(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + offset).loadUnaligned(as: UInt64.self))
    }

    /// The high bit of each byte of `word` (see ``word(_:at:)``) that is a quote, a
    /// backslash, a control character or not ASCII. Exact up to the first such byte (a borrow
    /// may mark bytes after it), which is all that is read.
    @inlinable @inline(__always)
    public static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let isQuote = (quote &- ones) & ~quote
        let isBackslash = (backslash &- ones) & ~backslash
        let isControl = (word &- ones &* 0x20) & ~word
        return (isQuote | isBackslash | isControl | word) & highBits
    }

    /// The value of eight ASCII digits (a word as ``word(_:at:)`` loads it), or `nil` when a
    /// byte is not one.
    @inlinable @inline(__always)
    public static func eightDigits(_ word: UInt64) -> Int? {
        // Each byte is 0x30...0x39 when its high nibble is 3 and adding 6 keeps it so.
        let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        guard (word & highNibbles) | (((word &+ 0x0606_0606_0606_0606) & highNibbles) >> 4) == 0x3333_3333_3333_3333 else { return nil }
        // Pairs, then quads, then the eight: each step multiplies the higher-placed half up.
        var value = word & 0x0F0F_0F0F_0F0F_0F0F
        value = (value &* ((10 << 8) + 1)) >> 8
        value = ((value & 0x00FF_00FF_00FF_00FF) &* ((100 << 16) + 1)) >> 16
        value = ((value & 0x0000_FFFF_0000_FFFF) &* ((10_000 << 32) + 1)) >> 32
        return Int(value)
    }

    /// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or code points
    /// past U+10FFFF): exactly the bytes `String(decoding:as:)` keeps as they are.
    public static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, low) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, high) = (3, 0x9F)
            case 0xF0: (length, low) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, high) = (4, 0x8F)
            default: return false
            }
            guard index + length <= bytes.count, (low...high).contains(bytes[index + 1]) else { return false }
            for offset in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[index + offset]) { return false }
            index += length
        }
        return true
    }
}
