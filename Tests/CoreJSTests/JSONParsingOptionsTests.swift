import CoreJS
import Testing

@Suite("JSON parsing options, safe integers and the visible text of messages")
struct JSONParsingOptionsTests {
    static let strict: JSONParsingOptions = [.rejectingDuplicateKeys, .rejectingInfiniteNumbers]

    @Test("without options a repeated key keeps the first place and the last value, and 1e400 is infinity, as in JSON.parse")
    func defaultsAsJSONParse() throws {
        let value = try JSONValue(parsing: #"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectValue?.keys.elements == ["a", "b"])
        #expect(value["a"] == 3)
        let many = try JSONValue(parsing: "{" + (0..<12).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + #","k3":"last"}"#)
        #expect(many.objectValue?.count == 12 && many["k3"] == "last")
        #expect(try JSONValue(parsing: "[1e400,-1e400]") == [.number(.infinity), .number(-.infinity)])
    }

    @Test(
        "a key given twice is refused, named with the keys above it",
        arguments: [
            (#"{"id":1,"id":2}"#, "duplicate key 'id'", 1),
            (#"{"p":{"a":{"b":1,"b":2}}}"#, "duplicate key 'b' in 'p.a'", 11),
            (#"{"list":[{},{"x":1,"x":1}]}"#, "duplicate key 'x' in 'list[1]'", 13),
            (#"[{"":1,"":2}]"#, "duplicate key '' in '[0]'", 2),
            (#"{"a.b":{"k\u0007":0,"k\u0007":0}}"#, #"duplicate key 'k<U+0007>' in '["a.b"]'"#, 8),
        ])
    func duplicateKeys(text: String, reason: String, column: Int) {
        #expect(throws: JSONParseError(reason: reason, column: column, kind: .duplicateKey)) {
            try JSONValue(parsing: text, options: Self.strict)
        }
    }

    @Test("a long path keeps its start and its innermost keys")
    func longPath() {
        let depth = 200
        let text = String(repeating: #"{"k":"#, count: depth) + #"{"x":1,"x":2}"# + String(repeating: "}", count: depth)
        let path = Array(repeating: "k", count: depth).joined(separator: ".")
        let shown = String(path.prefix(40)) + "…" + String(path.suffix(79))
        #expect(throws: JSONParseError(reason: "duplicate key 'x' in '\(shown)'", column: 5 * depth + 1, kind: .duplicateKey)) {
            try JSONValue(parsing: text, options: .rejectingDuplicateKeys)
        }
    }

    @Test("duplicates among more than 8 keys are found too")
    func duplicatesAmongMany() {
        let text = "{" + (0..<20).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + #","k17":0}"#
        #expect(throws: JSONParseError(reason: "duplicate key 'k17'", column: 1, kind: .duplicateKey)) {
            try JSONValue(parsing: text, options: .rejectingDuplicateKeys)
        }
    }

    @Test(
        "a number too large for a double is refused, named by its place",
        arguments: [
            ("1e400", "number 1e400 is out of range (it would be Infinity, which JSON cannot carry)", 1),
            (#"{"time":1e400}"#, "number 1e400 in 'time' is out of range (it would be Infinity, which JSON cannot carry)", 9),
            (#"{"p":{"v":[0,-2e308]}}"#, "number -2e308 in 'p.v[1]' is out of range (it would be -Infinity, which JSON cannot carry)", 14),
            (
                "[" + String(repeating: "9", count: 400) + "]",
                "number \(String(repeating: "9", count: 24))… in '[0]' is out of range (it would be Infinity, which JSON cannot carry)", 2
            ),
        ])
    func infiniteNumbers(text: String, reason: String, column: Int) {
        #expect(throws: JSONParseError(reason: reason, column: column, kind: .infiniteNumber)) {
            try JSONValue(parsing: text, options: .rejectingInfiniteNumbers)
        }
    }

    @Test("numbers that only lose digits or underflow to zero are kept, as JSON.parse keeps them")
    func largeButFinite() throws {
        #expect(
            try JSONValue(parsing: "[1.7976931348623157e308,1e-400,9007199254740993]", options: Self.strict) == [
                1.797_693_134_862_315_7e308, 0, 9_007_199_254_740_992,
            ])
    }

    @Test(
        "messages name characters that do not show by their code point",
        arguments: [
            ("\u{FEFF}{}", "unexpected character U+FEFF (a byte order mark)", 1),
            ("[\u{0}]", "unexpected character U+0000", 2),
            ("[\u{200B}1]", "unexpected character U+200B", 2),
            ("[x]", "unexpected character 'x'", 2),
            ("[é]", "unexpected character 'é'", 2),
            ("\"a\u{1}\"", "control character U+0001 in a string", 3),
            (#""\q""#, #"invalid escape '\q'"#, 3),
            ("\"\\\u{7F}\"", #"invalid escape: '\' before U+007F"#, 3),
            ("\"\\\u{FEFF}\"", #"invalid escape: '\' before U+FEFF"#, 3),
        ])
    func visibleCharacters(text: String, reason: String, column: Int) {
        #expect(throws: JSONParseError(reason: reason, column: column)) { try JSONValue(parsing: text) }
    }

    @Test("visible text writes what does not show as <U+…> and cuts long text")
    func visibleText() {
        #expect(VisibleText("a\u{FEFF}b\u{0}\u{7F}\u{2028}\u{A0} c\t").description == "a<U+FEFF>b<U+0000><U+007F><U+2028><U+00A0> c<U+0009>")
        #expect(VisibleText("ünï 日本 👩‍👩‍👧").description == "ünï 日本 👩<U+200D>👩<U+200D>👧")
        #expect(VisibleText(String(repeating: "x", count: 100)).description == String(repeating: "x", count: 80) + "…")
        #expect(VisibleText("abcd", limit: 4).description == "abcd")
        #expect(VisibleText("abcde", limit: 4).description == "abcd…")
        #expect(VisibleText.name(of: "\u{FEFF}") == "U+FEFF" && VisibleText.name(of: "x") == "'x'")
    }

    @Test(
        "safe integers are those JavaScript holds exactly",
        arguments: [
            (JSONValue.number(0), 0), (-0.0, 0), (9_007_199_254_740_991, 9_007_199_254_740_991),
            (-9_007_199_254_740_991, -9_007_199_254_740_991), (0x1p53, nil), (0x1p63, nil), (1e19, nil),
            (.number(.infinity), nil), (.number(-.infinity), nil), (.number(.nan), nil), (1.5, nil), ("1", nil), (nil, nil),
        ] as [(JSONValue, Int?)])
    func safeIntegers(value: JSONValue, expected: Int?) {
        #expect(value.safeIntegerValue == expected)
    }
}
