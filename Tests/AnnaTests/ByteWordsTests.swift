import CoreJS
import Foundation
import Testing

@testable import Anna

/// The word-at-a-time tests of the replay path (``ByteWords``) against plain byte-by-byte
/// answers, at every length and position. (The line scans built on such tests are
/// `JSONByteCursor`'s, tested in CoreJSTests.)
@Suite("Word-at-a-time byte tests")
struct ByteWordsTests {
    @Test("equal compares every length up to and past two words, differing at any position")
    func equalMatchesByteComparison() {
        let text = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        for count in 0...text.count {
            for position in 0..<max(count, 1) {
                var other = text
                if count > 0 { other[position] ^= 0x20 }
                let same = text.withUnsafeBytes { one in
                    other.withUnsafeBytes { two -> (Bool, Bool)? in
                        guard let one = one.baseAddress, let two = two.baseAddress else { return nil }
                        return (ByteWords.equal(one, one, count: count), ByteWords.equal(one, two, count: count))
                    }
                }
                #expect(same?.0 == true, "length \(count)")
                #expect(same?.1 == (count == 0), "length \(count), changed at \(position)")
            }
        }
    }

    @Test("specialBytes finds the first quote, backslash, control or non-ASCII byte in a word")
    func specialBytesFindsTheFirst() {
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x01, 0x1F, 0x80, 0xC3, 0xFF]
        let plain: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x41, 0x7E]
        #expect(ByteWords.specialBytes(Self.word(plain)) == 0)
        for special in specials {
            for position in 0..<8 {
                var bytes = plain
                bytes[position] = special
                // Anything after the first special byte may or may not be marked.
                if position < 7 { bytes[7] = 0x00 }
                let marks = ByteWords.specialBytes(Self.word(bytes))
                #expect(marks.trailingZeroBitCount >> 3 == position, "byte \(special) at \(position)")
            }
        }
    }

    @Test("eightDigits reads eight ASCII digits and refuses a word with any other byte")
    func eightDigitsMatchesDigitByDigit() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let digits = (0..<8).map { _ in UInt8.random(in: 0x30...0x39, using: &random) }
            #expect(ByteWords.eightDigits(Self.word(digits)) == Int(String(decoding: digits, as: UTF8.self)))
            var broken = digits
            let notDigits: [UInt8] = [0x2F, 0x3A, 0x2E, 0x65, 0x00, 0xFF, 0xB0, 0x40]
            broken[Int.random(in: 0..<8, using: &random)] = notDigits[Int.random(in: 0..<notDigits.count, using: &random)]
            #expect(ByteWords.eightDigits(Self.word(broken)) == nil, "\(broken)")
        }
        #expect(ByteWords.eightDigits(Self.word(Array("99999999".utf8))) == 99_999_999)
        #expect(ByteWords.eightDigits(Self.word(Array("00000000".utf8))) == 0)
    }

    private static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
    }
}
