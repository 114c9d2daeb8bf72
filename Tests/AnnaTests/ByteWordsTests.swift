import CoreJS
import Foundation
import Testing

@testable import Anna

/// The word-at-a-time tests of the replay path (``ByteWords``) and the token scans built on
/// them (``LineCursor``) against plain byte-by-byte answers, at every length and position.
@Suite("Word-at-a-time byte tests and line scans")
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

    @Test(
        "scanNumber reads what Double reads; integers of up to 15 digits exactly, marked as such",
        arguments: [
            "0", "-0", "7", "-12", "12345678", "123456789", "1700000000000", "123456789012345", "1234567890123456", "99999999999999999999",
            "1.5", "-0.25", "12345678.5", "1e300", "1E-7", "12345678e2", "5e-324",
        ])
    func scanNumberMatchesDouble(_ text: String) {
        let scanned = Self.scan(text + ",") { $0.scanNumber() }
        let digits = text.drop { $0 == "-" }.prefix { $0.isNumber }.count
        let isShortInteger = !text.contains { ".eE".contains($0) } && digits <= 15
        #expect(scanned?.value?.value.bitPattern == Double(text)?.bitPattern, "\(text)")
        #expect(scanned?.value?.isShortInteger == isShortInteger, "\(text)")
        #expect(scanned?.end == text.utf8.count, "\(text) stops before the comma")
    }

    @Test("scanNumber refuses what JSON does not allow", arguments: ["-", "+1", ".5", "1.", "1e", "1e+", "-x", "1e400", "-1e400"])
    func scanNumberRefuses(_ text: String) {
        #expect(Self.scan(text + "}") { $0.scanNumber() }?.value == nil, "\(text)")
    }

    @Test("scanString stops at the closing quote wherever it falls, and refuses escapes, controls and bad UTF-8")
    func scanStringAtEveryPosition() {
        for length in 0..<20 {
            let body = String(repeating: "a", count: length)
            #expect(Self.scan("\"\(body)\",\"next\"") { $0.scanString() }?.value == 1..<(1 + length), "length \(length)")
            for position in 0..<length {
                for bad in ["\\n", "\u{01}", "\u{1F}"] {
                    var text = Array(body)
                    text.insert(contentsOf: bad, at: position)
                    #expect(Self.scan("\"\(String(text))\",\"x\"") { $0.scanString() }?.value == nil, "\(bad.debugDescription) at \(position)")
                }
                var accented = Array(body)
                accented.insert("é", at: position)
                let line = "\"\(String(accented))\"}"
                #expect(Self.scan(line) { $0.scanString() }?.value == 1..<(line.utf8.count - 2), "é at \(position)")
            }
        }
        let invalid: [UInt8] = Array("\"abcdefgh".utf8) + [0xC3, 0x28] + Array("ijklmnop\"".utf8)
        #expect(Self.scan(bytes: invalid) { $0.scanString() }?.value == nil)
        #expect(Self.scan("\"unterminated and longer than a word") { $0.scanString() }?.value == nil)
    }

    private static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    /// What `body` scans from the start of `text`, and where the cursor ended.
    private static func scan<Value>(_ text: String, _ body: (inout LineCursor) -> Value?) -> (value: Value?, end: Int)? {
        scan(bytes: Array(text.utf8), body)
    }

    private static func scan<Value>(bytes: [UInt8], _ body: (inout LineCursor) -> Value?) -> (value: Value?, end: Int)? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var cursor = LineCursor(base: base, count: buffer.count)
            let value = body(&cursor)
            return (value, cursor.at)
        }
    }
}
