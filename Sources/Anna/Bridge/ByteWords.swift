import Foundation

/// Word-at-a-time byte tests for the replay path's hot loops: comparisons of short strings
/// (keys, op names, interned names) as a few word loads instead of a call to `memcmp`
/// each, and tests of eight bytes at once (plain string text, digits).
enum ByteWords {
    /// Whether the `count` bytes at `first` and at `second` are the same.
    @inline(__always)
    static func equal(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Bool {
        // Two overlapping loads cover every length from one word's size to twice it.
        switch count {
        case 0: return true
        case 1: return first.load(as: UInt8.self) == second.load(as: UInt8.self)
        case 2...3: return sameEnds(first, second, count: count, as: UInt16.self)
        case 4...7: return sameEnds(first, second, count: count, as: UInt32.self)
        case 8...16: return sameEnds(first, second, count: count, as: UInt64.self)
        default: return memcmp(first, second, count) == 0
        }
    }

    /// Whether the `count` bytes at `bytes` are those of `text`.
    @inline(__always)
    static func equal(_ bytes: UnsafeRawPointer, count: Int, _ text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && equal(bytes, UnsafeRawPointer(text.utf8Start), count: count)
    }

    @inline(__always)
    private static func sameEnds<Word: FixedWidthInteger>(
        _ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int, as _: Word.Type
    ) -> Bool {
        let last = count - MemoryLayout<Word>.size
        return first.loadUnaligned(as: Word.self) == second.loadUnaligned(as: Word.self)
            && first.loadUnaligned(fromByteOffset: last, as: Word.self) == second.loadUnaligned(fromByteOffset: last, as: Word.self)
    }

    /// The high bit of each byte of `word` (bytes in memory order from the low end: load it
    /// with `UInt64(littleEndian:)`) that is a quote, a backslash, a
    /// control character or not ASCII. Exact up to the first such byte (a borrow may mark bytes
    /// after it), which is all that is read.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let isQuote = (quote &- ones) & ~quote
        let isBackslash = (backslash &- ones) & ~backslash
        let isControl = (word &- ones &* 0x20) & ~word
        return (isQuote | isBackslash | isControl | word) & highBits
    }

    /// The value of eight ASCII digits (a word loaded as for ``specialBytes(_:)``), or `nil` when a byte is not one.
    @inline(__always)
    static func eightDigits(_ word: UInt64) -> Int? {
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
}
