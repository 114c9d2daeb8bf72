@_spi(JSONScanning) import CoreJS
import Testing

/// The shared JSON byte cursor: each scan's accepted and refused input, where it stops, the
/// escape policies side by side, and the depth limit of a skipped value.
@Suite("JSON byte cursor")
struct JSONByteCursorTests {
    @Test("whitespace is space, tab, line feed and carriage return only")
    func whitespace() {
        #expect(Self.run(" \t\r\n x") { $0.skipWhitespace() }.end == 5)
        for other in ["\u{0B}", "\u{0C}", "\u{A0}", "\u{FEFF}", "x"] {
            #expect(Self.run(" " + other) { $0.skipWhitespace() }.end == 1, "\(other.debugDescription)")
        }
        #expect(Self.run("   ") { $0.skipWhitespace() }.end == 3)
    }

    @Test("a literal is taken whole, or the cursor stops at the first byte that differs")
    func literals() {
        #expect(Self.run("true,") { $0.consume("true") } == (true, 4))
        #expect(Self.run("false") { $0.consume("false") } == (true, 5))
        #expect(Self.run("null]") { $0.consume("null") } == (true, 4))
        #expect(Self.run("trux") { $0.consume("true") } == (false, 3))
        #expect(Self.run("tr") { $0.consume("true") } == (false, 2))
        #expect(Self.run("fals") { $0.consume("false") } == (false, 4))
        #expect(Self.run("nUll") { $0.consume("null") } == (false, 1))
        #expect(Self.run("x") { $0.consume(UInt8(ascii: "y")) } == (false, 0))
        #expect(Self.run("") { $0.consume(UInt8(ascii: "y")) } == (false, 0))
    }

    @Test(
        "a number reads as Double reads it; integers of up to 15 digits exactly, marked as such",
        arguments: [
            "0", "-0", "7", "-12", "12345678", "123456789", "1700000000000", "123456789012345", "1234567890123456", "99999999999999999999",
            "1.5", "-0.25", "12345678.5", "1e300", "1E-7", "12345678e2", "5e-324", "1e400", "-1e400",
        ])
    func numbers(_ text: String) {
        let scanned = Self.run(text + ",") { $0.scanNumber() }
        let digits = text.drop { $0 == "-" }.prefix { $0.isNumber }.count
        let isShortInteger = !text.contains { ".eE".contains($0) } && digits <= 15
        #expect(scanned.value?.value.bitPattern == Double(text)?.bitPattern, "\(text)")
        #expect(scanned.value?.isShortInteger == isShortInteger, "\(text)")
        #expect(scanned.value?.text == 0..<text.utf8.count, "\(text)")
        #expect(scanned.end == text.utf8.count, "\(text) stops before the comma")
    }

    @Test(
        "a number refuses what JSON does not allow, stopping where a digit was due",
        arguments: [("-", 1), ("+1", 0), (".5", 0), ("1.", 2), ("1.x", 2), ("1e", 2), ("1e+", 3), ("-x", 1), ("1E-}", 3)])
    func numberRefusals(_ text: String, stop: Int) {
        let scanned = Self.run(text + "}") { $0.scanNumber() }
        #expect(scanned.value == nil, "\(text)")
        #expect(scanned.end == stop, "\(text)")
    }

    @Test("a leading zero ends the number: what follows is the caller's to refuse")
    func leadingZero() {
        let scanned = Self.run("0123") { $0.scanNumber() }
        #expect(scanned.value == JSONNumber(value: 0, isShortInteger: true, text: 0..<1))
        #expect(scanned.end == 1)
    }

    /// A string's text, the policy, and what the scan gives: the body's range, or the problem
    /// and where the cursor stopped.
    static let policyCases: [(String, JSONEscapePolicy, Result<Range<Int>, Refusal>)] = [
        (#""abc""#, .none, .success(1..<4)),
        (#""abc""#, .written, .success(1..<4)),
        (#""abc""#, .json, .success(1..<4)),
        (#""abc""#, .unchecked, .success(1..<4)),
        (#""a\nb""#, .none, .failure(Refusal(.refusedEscape, at: 2))),
        (#""a\nb""#, .written, .success(1..<5)),
        (#""a\nb""#, .json, .success(1..<5)),
        (#""a\"b""#, .unchecked, .success(1..<5)),
        (#""\/""#, .written, .failure(Refusal(.refusedEscape, at: 1))),
        (#""\/""#, .json, .success(1..<3)),
        (#""\u0001""#, .written, .success(1..<7)),
        (#""\u001f""#, .written, .success(1..<7)),
        (#""\u001F""#, .written, .failure(Refusal(.refusedEscape, at: 1))),
        (#""\u000a""#, .written, .failure(Refusal(.refusedEscape, at: 1))),
        (#""\u00e9""#, .written, .failure(Refusal(.refusedEscape, at: 1))),
        (#""\u00e9""#, .json, .success(1..<7)),
        (#""\ud800""#, .json, .success(1..<7)),
        (#""\x""#, .json, .failure(Refusal(.invalidEscape, at: 2))),
        (#""\x""#, .written, .failure(Refusal(.refusedEscape, at: 1))),
        (#""\x""#, .unchecked, .success(1..<3)),
        (#""\u12""#, .json, .failure(Refusal(.incompleteUnicodeEscape, at: 3))),
        (#""\u12G4""#, .json, .failure(Refusal(.invalidUnicodeEscape, at: 5))),
        ("\"a\u{01}b\"", .none, .failure(Refusal(.controlCharacter, at: 2))),
        ("\"a\u{1F}b\"", .written, .failure(Refusal(.controlCharacter, at: 2))),
        ("\"a\u{0A}b\"", .json, .failure(Refusal(.controlCharacter, at: 2))),
        ("\"a\u{01}b\"", .unchecked, .success(1..<4)),
        (#""abc"#, .json, .failure(Refusal(.unterminated, at: 4))),
        (#""abc\"#, .unchecked, .failure(Refusal(.unterminated, at: 5))),
        (#""abc\"#, .json, .failure(Refusal(.unterminated, at: 5))),
        ("abc", .json, .failure(Refusal(.notAString, at: 0))),
    ]

    @Test("each escape policy takes its escapes and refuses the rest, where they are", arguments: 0..<policyCases.count)
    func escapePolicies(_ index: Int) {
        let (text, policy, expected) = Self.policyCases[index]
        let scanned = Self.scanString(Array(text.utf8), policy)
        switch expected {
        case let .success(range):
            #expect(scanned.body?.range == range, "\(text) under \(policy)")
            #expect(scanned.body?.hasEscapes == text.contains("\\"), "\(text)")
            #expect(scanned.end == text.utf8.count, "\(text) ends after the closing quote")
        case let .failure(refusal):
            #expect(scanned.problem == refusal.problem, "\(text) under \(policy)")
            #expect(scanned.end == refusal.position, "\(text) under \(policy)")
        }
    }

    @Test("bytes that are not UTF-8 are refused by the policies that pass text on as it is")
    func invalidUTF8() {
        let bytes: [UInt8] = Array("\"abcdefgh".utf8) + [0xC3, 0x28] + Array("ijklmnop\"".utf8)
        for policy in [JSONEscapePolicy.none, .written] {
            #expect(Self.scanString(bytes, policy).problem == .invalidUTF8, "\(policy)")
        }
        for policy in [JSONEscapePolicy.json, .unchecked] {
            #expect(Self.scanString(bytes, policy).body == JSONStringBody(range: 1..<19, isASCII: false, hasEscapes: false), "\(policy)")
        }
        #expect(Self.scanString(Array("\"é\"".utf8), .none).body == JSONStringBody(range: 1..<3, isASCII: false, hasEscapes: false))
    }

    @Test("a string ends at its closing quote wherever it falls in a word; a refusal is found at any position")
    func stringsAtEveryPosition() {
        for length in 0..<20 {
            let body = String(repeating: "a", count: length)
            #expect(Self.scanString(Array("\"\(body)\",\"next\"".utf8), .none).body?.range == 1..<(1 + length), "length \(length)")
            for position in 0..<length {
                for bad in ["\\n", "\u{01}", "\u{1F}"] {
                    var text = Array(body)
                    text.insert(contentsOf: bad, at: position)
                    let scanned = Self.scanString(Array("\"\(String(text))\",\"x\"".utf8), .none)
                    #expect(scanned.body == nil, "\(bad.debugDescription) at \(position)")
                    #expect(scanned.end == 1 + position, "\(bad.debugDescription) at \(position)")
                }
                var accented = Array(body)
                accented.insert("é", at: position)
                let line = Array("\"\(String(accented))\"}".utf8)
                #expect(Self.scanString(line, .none).body?.range == 1..<(line.count - 2), "é at \(position)")
                #expect(Self.scanString(line, .none).body?.isASCII == false, "é at \(position)")
            }
        }
        #expect(Self.scanString(Array("\"unterminated and longer than a word".utf8), .none).problem == .unterminated)
    }

    @Test("a string read under the JSON policy is decoded: escapes, surrogate pairs, lone surrogates, bad bytes")
    func readString() throws {
        let cases: [(String, String)] = [
            (#""plain""#, "plain"),
            (#""a\"b\\c\/d\b\f\n\r\t""#, "a\"b\\c/d\u{08}\u{0C}\n\r\t"),
            (#""\u00e9\u00C9""#, "éÉ"),
            (#""\ud83d\ude00!""#, "😀!"),
            (#""\ud83d""#, "\u{FFFD}"),
            (#""\ude00x""#, "\u{FFFD}x"),
            (#""\ud83d\u0041""#, "\u{FFFD}A"),
        ]
        for (text, expected) in cases {
            let bytes = Array(text.utf8)
            let read = try bytes.withUnsafeBufferPointer { buffer in
                var cursor = JSONByteCursor(buffer)
                return (try cursor.readString(), cursor.position)
            }
            #expect(read.0 == expected, "\(text)")
            #expect(read.1 == bytes.count, "\(text)")
        }
        let invalid: [UInt8] = [0x22, 0x61, 0xFF, 0x5C, 0x6E, 0x22]
        let decoded = try invalid.withUnsafeBufferPointer { buffer in
            var cursor = JSONByteCursor(buffer)
            return try cursor.readString()
        }
        #expect(decoded == "a\u{FFFD}\n")
    }

    @Test("skipValue passes over a value of any shape up to its end, strings only delimited")
    func skipValue() {
        // Each text, and how many bytes at its end are not the value's.
        let values: [(String, Int)] = [
            (#"  {"a": [1, 2, {"b": "]}\"["}], "c": null} ,"#, 2), ("[]", 0), (#""\"]""#, 0), ("-12.5e3 ,", 2), ("true}", 1),
            ("[[[[]]]]", 0), ("{\"\u{01}\": [}}", 0), ("nul\"", 1),
        ]
        for (text, after) in values {
            let skipped = Self.skip(text, maxDepth: .max)
            #expect(skipped.value == nil, "\(text)")
            #expect(skipped.end == text.utf8.count - after, "\(text)")
        }
    }

    @Test(
        "skipValue refuses what is no value, where it is",
        arguments: [
            ("", JSONSkipProblem.endOfText, 0), ("  ", .endOfText, 2), ("[1, 2", .endOfText, 5), (#"["ab"#, .unterminatedString, 4),
            (#""ab\"#, .unterminatedString, 4), (" ]", .unexpectedClose(UInt8(ascii: "]")), 1), ("}", .unexpectedClose(UInt8(ascii: "}")), 0),
            (", 1", .expectedValue, 0), (":", .expectedValue, 0),
        ])
    func skipRefusals(_ text: String, problem: JSONSkipProblem, position: Int) {
        let skipped = Self.skip(text, maxDepth: .max)
        #expect(skipped.value == problem, "\(text)")
        #expect(skipped.end == position, "\(text)")
    }

    @Test("skipValue takes containers nested up to its limit and refuses the one past it, at its bracket")
    func skipDepthLimit() {
        for limit in 0..<6 {
            for depth in 0...(limit + 1) {
                let text =
                    String(repeating: "[{\"k\":", count: depth / 2) + (depth % 2 == 1 ? "[1]" : "0")
                    + String(repeating: "}]", count: depth / 2)
                let skipped = Self.skip(text, maxDepth: limit)
                if depth <= limit {
                    #expect(skipped.value == nil, "depth \(depth), limit \(limit)")
                    #expect(skipped.end == text.utf8.count, "depth \(depth), limit \(limit)")
                } else {
                    #expect(skipped.value == .tooDeep, "depth \(depth), limit \(limit)")
                    let bracket = text.utf8.enumerated().filter { "[{".utf8.contains($0.element) }[limit].offset
                    #expect(skipped.end == bracket, "depth \(depth), limit \(limit)")
                }
            }
        }
    }

    // MARK: - Helpers

    /// A refused string: the problem and where the cursor stopped.
    struct Refusal: Error, Equatable {
        var problem: JSONStringProblem
        var position: Int

        init(_ problem: JSONStringProblem, at position: Int) {
            self.problem = problem
            self.position = position
        }
    }

    /// What `body` scans from the start of `text`, and where the cursor ended.
    private static func run<Value>(_ text: String, _ body: (inout JSONByteCursor) -> Value) -> (value: Value, end: Int) {
        Array(text.utf8).withUnsafeBufferPointer { buffer in
            var cursor = JSONByteCursor(buffer)
            let value = body(&cursor)
            return (value, cursor.position)
        }
    }

    /// What skipping the value at the start of `text` gives, and where the cursor ended.
    private static func skip(_ text: String, maxDepth: Int) -> (value: JSONSkipProblem?, end: Int) {
        Array(text.utf8).withUnsafeBufferPointer { buffer in
            var cursor = JSONByteCursor(buffer)
            do throws(JSONSkipProblem) {
                try cursor.skipValue(maxDepth: maxDepth)
                return (nil, cursor.position)
            } catch {
                return (error, cursor.position)
            }
        }
    }

    private static func scanString(_ bytes: [UInt8], _ policy: JSONEscapePolicy) -> (
        body: JSONStringBody?, problem: JSONStringProblem?, end: Int
    ) {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONByteCursor(buffer)
            do throws(JSONStringProblem) {
                let body = try cursor.scanString(policy)
                return (body, nil, cursor.position)
            } catch {
                return (nil, error, cursor.position)
            }
        }
    }
}
