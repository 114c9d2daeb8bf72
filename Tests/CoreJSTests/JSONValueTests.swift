import CoreJS
import Foundation
import Testing

@Suite("JSONValue conversion between Swift and JavaScript")
struct JSONValueTests {
    let context = JavaScriptContext()

    static let roundTrips: [JSONValue] = [
        .undefined, .null, true, false, 0, -1.5, 9_007_199_254_740_991, 1e300, -2e-300,
        "", "plain", "ünïcødé ✓ 日本語 👩‍👩‍👧", "quote \" backslash \\ newline \n",
        [], [1, "two", nil, [3, [4]]],
        ["nested": ["deeper": ["deepest": [1, 2, ["k": "v"]]]], "flag": false],
        ["emoji 🎉 key": "value"],
    ]

    @Test("Swift → JS → Swift keeps the value", arguments: roundTrips)
    func roundTrip(_ value: JSONValue) {
        #expect(context.makeValue(value).toJSON() == value)
    }

    @Test(
        "numbers are written as JavaScript writes them",
        arguments: [
            0.5, -0.25, 123.456, 1e-5, 1.2e-5, -3.25e-6, 1e-7, 1.5e-300, 1e21, 2.5e22, 1e300, 9_007_199_254_740_994, 0.1 + 0.2,
        ])
    func numbersAsJavaScript(_ number: Double) throws {
        let stringify = try context.evaluate("(function (n) { return JSON.stringify(n) })", sourceURL: "/t.js")
        let expected = try stringify.call([JSONValue.number(number)]).toJSON().stringValue
        #expect(JSONValue.number(number).jsonText == expected)
    }

    @Test(
        "whole numbers past 2^53 print the shortest digits, as JSON.stringify does",
        arguments: [
            0x1p53, 0x1p53 + 2, 0x1p60, -0x1p60, 0x1p64, 1e16, 1e17 + 8, 1e20, 1.2345678901234568e20, 9.999_999_999_999_998e19,
            9.999_999_999_999_999e20, -0.0,
        ])
    func largeWholeNumbersAsJavaScript(_ number: Double) throws {
        let stringify = try context.evaluate("(function (n) { return JSON.stringify(n) })", sourceURL: "/t.js")
        let expected = try stringify.call([JSONValue.number(number)]).toJSON().stringValue
        #expect(JSONValue.number(number).jsonText == expected)
    }

    @Test("2^60 prints as 1152921504606847000, not every binary digit")
    func twoToTheSixty() {
        #expect(JSONValue.number(0x1p60).jsonText == "1152921504606847000")
        #expect(JSONValue.array([.number(1e20), .number(-0x1p60)]).jsonText == "[100000000000000000000,-1152921504606847000]")
    }

    @Test(
        "numbers parse as JSON.parse reads them",
        arguments: [
            "0", "-0", "7", "-42", "999999999999999", "1234567890123456", "-9007199254740993", "1E+2", "2.5e-3", "-0.0", "10.25",
        ])
    func numbersAsJSONParse(_ text: String) throws {
        let parse = try context.evaluate("(function (t) { const n = JSON.parse(t); return [n, Object.is(n, -0)] })", sourceURL: "/t.js")
        let expected = try parse.call([JSONValue.string(text)]).toJSON()
        guard case let .number(number) = try JSONValue(parsing: text) else {
            Issue.record("\(text) is not a number")
            return
        }
        #expect([.number(number), .bool(number == 0 && number.sign == .minus)] == expected)
    }

    @Test("malformed numbers are refused", arguments: ["01", "1.", "-", "1e", ".5", "+1", "1.e3"])
    func malformedNumbers(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test("a large array of objects survives garbage collection while it is built")
    func largeArrays() throws {
        let value = JSONValue.array((0..<100_000).map { .object(["n": .number(Double($0)), "s": .string("item \($0)")]) })
        let back = context.makeValue(value)
        context.collectGarbage()
        // Checked in JavaScript: reading 100,000 objects back is slow in a debug build, and is
        // tested apart (the conversion's own tests).
        let intact = try context.evaluate(
            "(function (a) { return a.length === 100000 && a.every((o, i) => o.n === i && o.s === 'item ' + i && Object.keys(o).length === 2); })",
            sourceURL: "/intact.js")
        #expect(try intact.call([back]).toJSON() == true)
    }

    @Test("strings with NUL and decomposed characters cross unchanged")
    func unusualStrings() throws {
        let length = try context.evaluate("(function (s) { return s.length })", sourceURL: "/t.js")
        #expect(try length.call([JSONValue.string("a\u{0}bcd")]).toJSON() == 5)
        #expect(try length.call([JSONValue.string("e\u{301}")]).toJSON() == 2)
        #expect(context.makeValue("a\u{0}bcd").toJSON() == "a\u{0}bcd")
    }

    @Test("undefined and null stay distinct in both directions")
    func undefinedIsNotNull() throws {
        #expect(try context.evaluate("undefined", sourceURL: "/t.js").toJSON() == .undefined)
        #expect(try context.evaluate("null", sourceURL: "/t.js").toJSON() == .null)
        let typeOf = try context.evaluate("(function (x) { return typeof x + ':' + (x === null) })", sourceURL: "/t.js")
        #expect(try typeOf.call([JSONValue.undefined]).toJSON() == "undefined:false")
        #expect(try typeOf.call([JSONValue.null]).toJSON() == "object:true")
    }

    @Test("objects keep the key order JavaScript wrote")
    func keyOrder() throws {
        let value = try context.evaluate("({ zebra: 1, apple: 2, mango: 3 })", sourceURL: "/t.js").toJSON()
        #expect(value.objectValue.map { Array($0.keys) } == ["zebra", "apple", "mango"])
        #expect(value.jsonText == #"{"zebra":1,"apple":2,"mango":3}"#)
    }

    @Test("values JSON cannot hold follow the documented rules")
    func conversionRules() throws {
        let value = try context.evaluate(
            """
            const cyclic = { name: 'loop' }; cyclic.self = cyclic;
            const error = new RangeError('too far'); error.code = 'E_FAR';
            ({
              nan: NaN, inf: Infinity, negInf: -Infinity,
              fn: function () {}, sym: Symbol('s'), undef: undefined,
              list: [undefined, function () {}, NaN, 1],
              date: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)),
              big: 12345678901234567890n,
              cyclic: cyclic, error: error,
              shared: [cyclic.name, cyclic.name],
            })
            """, sourceURL: "/t.js"
        ).toJSON()
        #expect(value["nan"] == .null)
        #expect(value["inf"] == .null)
        #expect(value["negInf"] == .null)
        #expect(value["fn"] == nil)
        #expect(value["sym"] == nil)
        #expect(value["undef"] == nil)
        #expect(value["list"] == [nil, nil, nil, 1])
        #expect(value["date"] == "2024-01-02T03:04:05.000Z")
        #expect(value["big"] == "12345678901234567890")
        #expect(value["cyclic"] == ["name": "loop", "self": "[Circular]"])
        #expect(value["error"] == ["name": "RangeError", "message": "too far", "code": "E_FAR"])
        #expect(value["shared"] == ["loop", "loop"])
        #expect(try context.evaluate("(function () {})", sourceURL: "/t.js").toJSON() == .undefined)
        #expect(try context.evaluate("Symbol('top')", sourceURL: "/t.js").toJSON() == .undefined)
    }

    @Test("a shared (non-cyclic) object is converted at every place it appears")
    func sharedReferences() throws {
        let value = try context.evaluate("const o = { a: 1 }; ({ x: o, y: [o, o] })", sourceURL: "/t.js").toJSON()
        #expect(value == ["x": ["a": 1], "y": [["a": 1], ["a": 1]]])
    }

    @Test("equality ignores key order, encoding keeps it")
    func equality() throws {
        let a: JSONValue = ["a": 1, "b": 2]
        let b: JSONValue = ["b": 2, "a": 1]
        #expect(a == b)
        #expect(a.jsonText == #"{"a":1,"b":2}"#)
        #expect(b.jsonText == #"{"b":2,"a":1}"#)
        #expect(JSONValue.undefined != .null)
    }

    @Test("strings are escaped as JSON.stringify escapes them, runs between escapes kept whole")
    func stringEscapes() throws {
        let text = "a\"b\\c\nd\re\tf\u{08}g\u{0C}h\u{01}i\u{1F}é😀\u{7F}"
        let written = JSONValue.object(["k\"ey": .string(text), "plain": "ünïcode 😀 only"]).jsonText
        #expect(written == "{\"k\\\"ey\":\"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0001i\\u001fé😀\u{7F}\",\"plain\":\"ünïcode 😀 only\"}")
        #expect(try JSONValue(parsing: written)["k\"ey"] == .string(text))
        for scalar in (0..<0x80).compactMap(Unicode.Scalar.init) {
            let value = JSONValue.string("x\(scalar)é\(scalar)")
            #expect(try JSONValue(parsing: value.jsonText) == value, "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test("JSON text parses with key order and reports the column of an error")
    func parsing() throws {
        let text = #"{"op":"event","id":[7,"row",2],"n":-1.25e2,"s":"\u00e9\ud83d\ude00\n","ok":true,"nil":null}"#
        let value = try JSONValue(parsing: text)
        #expect(value["op"] == "event")
        #expect(value["id"] == [7, "row", 2])
        #expect(value["n"] == -125)
        #expect(value["s"] == "é😀\n")
        #expect(value.jsonText == #"{"op":"event","id":[7,"row",2],"n":-125,"s":"é😀\n","ok":true,"nil":null}"#)
        #expect(throws: JSONParseError(reason: "expected ':' after an object key", column: 7)) {
            try JSONValue(parsing: #"{"op" 1}"#)
        }
        #expect(throws: JSONParseError(reason: "unexpected text after the JSON value", column: 4)) {
            try JSONValue(parsing: "{} x")
        }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[1,]") }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: "\"open") }
    }

    @Test("array elements are read one by one; deep ones are cut like the conversion from JavaScript")
    func elementsCutDeepContainers() throws {
        let levels = JSONValue.maximumDepth + 40
        // Each step is an object and an array, with brackets inside a string to skip.
        let deep = String(repeating: #"{"k":["]}\"[","#, count: levels / 2) + "0" + String(repeating: "]}", count: levels / 2)
        let text = #"[1,"# + deep + #",{"after":"x"}]"#
        var elements: [JSONValue] = []
        try Array(text.utf8).withUnsafeBufferPointer { bytes in
            try JSONValue.forEachElement(ofArrayUTF8: bytes) { elements.append($0) }
        }
        #expect(elements.count == 3)
        #expect(elements.first == 1 && elements.last == ["after": "x"])
        var level = 0
        var current = elements[1]
        while true {
            if case let .object(members) = current, let inner = members["k"] {
                current = inner
            } else if case let .array(items) = current, items.count == 2 {
                current = items[1]
            } else {
                break
            }
            level += 1
        }
        #expect(level == JSONValue.maximumDepth && current == "[Too deep]")
        // A whole document that deep is refused, not cut.
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
    }

    @Test("each element comes with its own bytes as written, except one that was cut")
    func elementTexts() throws {
        let levels = JSONValue.maximumDepth + 2
        let deep = String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
        let written = [#"{"b":1, "a" : [true,null]}"#, #""\u00e9\n""#, "1e21", deep, "-0.5"]
        let text = "[ " + written.joined(separator: " ,\n") + " ]"
        var seen: [(JSONValue, String?)] = []
        try Array(text.utf8).withUnsafeBufferPointer { bytes in
            try JSONValue.forEachElementText(ofArrayUTF8: bytes) { value, bytes in
                seen.append((value, bytes.map { String(decoding: $0, as: UTF8.self) }))
            }
        }
        #expect(seen.map(\.1) == [written[0], written[1], written[2], nil, written[4]])
        for (index, (value, elementText)) in seen.enumerated() where index != 3 {
            #expect(try JSONValue(parsing: try #require(elementText)) == value)
        }
    }

    @Test("Codable encodes and decodes through Foundation's JSON coders")
    func codable() throws {
        let value: JSONValue = ["name": "x", "list": [1, true, nil], "gone": .undefined]
        let data = try JSONEncoder().encode(value)
        var expected = value.objectValue!
        expected.removeValue(forKey: "gone")
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == .object(expected))
    }
}
