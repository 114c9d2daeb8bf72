import Foundation
import Testing

@testable import CoreJS

@Suite("Strings from JavaScript's UTF-16")
struct JSStringTests {
    /// Swift's own decoding, which the fast one must equal.
    static func reference(_ units: [UInt16]) -> String {
        String(decoding: units, as: UTF16.self)
    }

    static func decoded(_ units: [UInt16]) -> String {
        units.withUnsafeBufferPointer { String(utf16: $0) }
    }

    @Test(
        "every kind of unit decodes as Swift's own decoding does: ASCII, two and three bytes, pairs, lone surrogates, NUL",
        arguments: [
            [], [0x41], [0x00, 0x41, 0x00], [0xE9], [0x7FF, 0x800], [0x20AC, 0xFFFF], [0xD83D, 0xDE00],
            [0xD83D], [0xDE00], [0xD83D, 0x41], [0x41, 0xDE00, 0xD83D], [0xDBFF, 0xDFFF], [0xD800, 0xDC00],
            [0xD83D, 0xD83D, 0xDE00], [0xFFFD, 0xFEFF],
        ] as [[UInt16]])
    func edges(units: [UInt16]) {
        #expect(Self.decoded(units) == Self.reference(units))
        #expect(Array(Self.decoded(units).utf8) == Array(Self.reference(units).utf8))
    }

    @Test("random UTF-16, valid or not, decodes as Swift's own decoding does")
    func random() {
        var generator = SystemRandomNumberGenerator()
        let interesting: [ClosedRange<UInt16>] = [0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xD800...0xDBFF, 0xDC00...0xDFFF, 0xE000...0xFFFF]
        for _ in 0..<2_000 {
            let units = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                UInt16.random(in: interesting.randomElement(using: &generator)!, using: &generator)
            }
            #expect(Array(Self.decoded(units).utf8) == Array(Self.reference(units).utf8), "\(units)")
        }
    }

    @Test(
        "a string to JavaScript keeps every character, NUL too, whether Swift's or Foundation's",
        arguments: [
            "", "abc", "a\u{0}b", "\u{0}", "é€😀\u{0}", String(repeating: "x", count: 100_000) + "\u{0}",
            "long " + String(repeating: "é", count: 50_000),
        ])
    func toTheEngine(text: String) {
        for string in [text, String(NSString(string: text))] {
            #expect(containsNUL(string) == string.unicodeScalars.contains("\u{0}"))
            #expect(withJSString(string) { String(jsString: $0) } == string)
        }
    }

    @Test("a string from JavaScript keeps every character, through the engine")
    func throughTheEngine() throws {
        let context = JavaScriptContext()
        let text = try context.evaluate("'a\\u0000é€😀' + String.fromCharCode(0xD800) + 'z'", sourceURL: "t.js").toString()
        #expect(text == "a\u{0}é€😀\u{FFFD}z")
    }
}
