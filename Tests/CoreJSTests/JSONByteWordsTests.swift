@_spi(JSONScanning) import CoreJS
import Testing

/// The word-at-a-time tests under ``JSONByteCursor`` against plain byte-by-byte answers, at
/// every length and position.
@Suite("JSON byte cursor: word-at-a-time byte tests")
struct JSONByteWordsTests {
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
                        return (JSONByteWords.equal(one, one, count: count), JSONByteWords.equal(one, two, count: count))
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
        #expect(JSONByteWords.specialBytes(Self.word(plain)) == 0)
        for special in specials {
            for position in 0..<8 {
                var bytes = plain
                bytes[position] = special
                // Anything after the first special byte may or may not be marked.
                if position < 7 { bytes[7] = 0x00 }
                let marks = JSONByteWords.specialBytes(Self.word(bytes))
                #expect(marks.trailingZeroBitCount >> 3 == position, "byte \(special) at \(position)")
            }
        }
    }

    @Test("eightDigits reads eight ASCII digits and refuses a word with any other byte")
    func eightDigitsMatchesDigitByDigit() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let digits = (0..<8).map { _ in UInt8.random(in: 0x30...0x39, using: &random) }
            #expect(JSONByteWords.eightDigits(Self.word(digits)) == Int(String(decoding: digits, as: UTF8.self)))
            var broken = digits
            let notDigits: [UInt8] = [0x2F, 0x3A, 0x2E, 0x65, 0x00, 0xFF, 0xB0, 0x40]
            broken[Int.random(in: 0..<8, using: &random)] = notDigits[Int.random(in: 0..<notDigits.count, using: &random)]
            #expect(JSONByteWords.eightDigits(Self.word(broken)) == nil, "\(broken)")
        }
        #expect(JSONByteWords.eightDigits(Self.word(Array("99999999".utf8))) == 99_999_999)
        #expect(JSONByteWords.eightDigits(Self.word(Array("00000000".utf8))) == 0)
    }

    @Test("isValidUTF8 accepts exactly what String(validating:) accepts")
    func utf8MatchesTheStandardLibrary() {
        var random = SystemRandomNumberGenerator()
        let interesting: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xA0, 0xED, 0x9F, 0xEF, 0xF0, 0x90, 0xF4, 0x8F, 0xF5, 0xFF]
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...6, using: &random)).map { _ in interesting.randomElement(using: &random) ?? 0 }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(bytes.withUnsafeBufferPointer { JSONByteWords.isValidUTF8($0) } == expected, "\(bytes)")
        }
        for text in ["é", "€", "😀", "\u{10FFFF}", "\u{D7FF}"] {
            #expect(Array(text.utf8).withUnsafeBufferPointer { JSONByteWords.isValidUTF8($0) }, "\(text)")
        }
        for bytes: [UInt8] in [[0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            #expect(!bytes.withUnsafeBufferPointer { JSONByteWords.isValidUTF8($0) }, "\(bytes)")
        }
    }

    private static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer { JSONByteWords.word($0, at: 0) }
    }
}
