import Testing

@testable import CoreJS

@Suite("JavaScript's text as UTF-8: the engine's bytes, and U+FFFD where the engine stops")
struct UTF16TranscodingTests {
    /// `units` as Swift's own decoding writes them in UTF-8.
    static func reference(_ units: [UInt16]) -> [UInt8] {
        Array(String(decoding: units, as: UTF16.self).utf8)
    }

    /// Whether `units` hold no unpaired surrogate.
    static func isWellFormed(_ units: [UInt16]) -> Bool {
        var iterator = units.makeIterator()
        var codec = UTF16()
        while true {
            switch codec.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    @Test(
        "well-formed text converts as the engine converts it: ASCII, Latin-1, two and three bytes, pairs, NUL",
        arguments: [
            "''", "'a'", "'\\u0000a\\u0000'", "'\\u007F'", "'\\u0080'", "'é'", "'\\u07FF\\u0800'", "'\\u20AC\\uFFFF'",
            "'\\uD83D\\uDE00'", "'\\uDBFF\\uDFFF'", "'日本語 👩‍👩‍👧'", "'x'.repeat(4099) + 'é'", "'é' + 'x'.repeat(33)",
            "JSON.stringify([{ action: 'selected', id: '/app/screen3/list/cell', i: 12 }, 'v3', '\\uD800'])",
        ])
    func wellFormed(source: String) throws {
        let value = try JavaScriptContext().evaluate(source, sourceURL: "/edges.js")
        #expect(value.utf8Bytes() == value.engineUTF8Bytes(), "\(source)")
    }

    @Test("a lone surrogate becomes U+FFFD and the text goes on (the engine's conversion stops there)")
    func loneSurrogates() throws {
        let context = JavaScriptContext()
        let lone = try context.evaluate("'a\\uD800b'", sourceURL: "/s.js")
        #expect(lone.utf8Bytes() == [0x61, 0xEF, 0xBF, 0xBD, 0x62])
        #expect(lone.engineUTF8Bytes() == [0x61])
        #expect(
            try context.evaluate("'\\uDE00\\uD83D\\uDE00\\uD83D'", sourceURL: "/s.js").utf8Bytes()
                == [0xEF, 0xBF, 0xBD, 0xF0, 0x9F, 0x98, 0x80, 0xEF, 0xBF, 0xBD])
    }

    @Test("random UTF-16 converts as Swift decodes it, and as the engine does when well-formed")
    func random() throws {
        let context = JavaScriptContext()
        let fromUnits = try context.evaluate("(units) => String.fromCharCode(...units)", sourceURL: "/random.js")
        var generator = SystemRandomNumberGenerator()
        let interesting: [ClosedRange<UInt16>] = [
            0...0x7F, 0x80...0xFF, 0x100...0x7FF, 0x800...0xD7FF, 0xD800...0xDBFF, 0xDC00...0xDFFF, 0xE000...0xFFFF,
        ]
        var wellFormed = 0
        for round in 0..<1_000 {
            // Every other text has no lone surrogate, so both comparisons run often.
            let ranges = round.isMultiple(of: 2) ? interesting : interesting.filter { $0.lowerBound < 0xD800 || $0.lowerBound > 0xDFFF }
            let units = (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                UInt16.random(in: ranges.randomElement(using: &generator)!, using: &generator)
            }
            let value = try fromUnits.call([context.makeValue(.array(units.map { .number(Double($0)) }))])
            #expect(value.utf8Bytes() == Self.reference(units), "\(units)")
            if Self.isWellFormed(units) {
                wellFormed += 1
                #expect(value.utf8Bytes() == value.engineUTF8Bytes(), "\(units)")
            }
        }
        #expect(wellFormed >= 500)
    }
}
