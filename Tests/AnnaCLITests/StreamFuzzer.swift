// The generator of the stream fuzz tests: event-stream lines from a seed, valid lines of the
// demo session mutated and mixed with values picked to break readers.
import AnnaTestSupport
import CoreJS
import Foundation

/// Makes event-stream lines (as bytes: invalid UTF-8 is among the cases) from valid lines.
struct StreamFuzzer {
    /// The lines mutations start from.
    let validLines: [String]
    var random: SplitMix64

    /// A valid line, mutated once (most often) to three times.
    mutating func hostileLine() -> [UInt8] {
        var line = Array(pick(validLines).utf8)
        for _ in 0..<pick([1, 1, 1, 2, 3]) { line = mutate(line) }
        return line
    }

    private mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int.random(in: 0..<choices.count, using: &random)]
    }

    private mutating func mutate(_ line: [UInt8]) -> [UInt8] {
        let fields = members(of: line)
        switch Int.random(in: 0..<15, using: &random) {
        case 12...14 where fields != nil:  // a field's value replaced by one at the edge of what is valid
            guard var fields, !fields.isEmpty else { return line }
            let index = Int.random(in: 0..<fields.count, using: &random)
            fields[index].value = Array(pick(Self.edgeValues[String(decoding: fields[index].key, as: UTF8.self)] ?? Self.edgeValuesOfAnyField).utf8)
            return render(fields)
        case 0...3 where fields != nil:  // a field's value replaced
            guard var fields, !fields.isEmpty else { return line }
            let index = Int.random(in: 0..<fields.count, using: &random)
            fields[index].value = hostileValue()
            return render(fields)
        case 4 where fields != nil:  // a key given twice
            guard var fields, let field = fields.randomElement(using: &random) else { return line }
            fields.insert(
                (field.key, Bool.random(using: &random) ? field.value : hostileValue()), at: Int.random(in: 0...fields.count, using: &random))
            return render(fields)
        case 5 where fields != nil:  // a field added: a known one, an unknown one, or one that does not show
            guard var fields else { return line }
            let key = pick(["id", "parent", "name", "index", "time", "properties", "value", "op", "x", "\u{FEFF}id", "na\u{0}me", ""])
            fields.append((Array(JSONValue.string(key).jsonText.utf8), hostileValue()))
            return render(fields)
        case 6:  // cut short
            return Array(line.prefix(Int.random(in: 0..<max(1, line.count), using: &random)))
        case 7:  // a byte order mark in front
            return [0xEF, 0xBB, 0xBF] + line
        case 8:  // a span deleted
            guard line.count > 1 else { return line }
            let start = Int.random(in: 0..<line.count, using: &random)
            let end = min(line.count, start + Int.random(in: 1...8, using: &random))
            return Array(line[..<start] + line[end...])
        case 9:  // a slice repeated
            guard !line.isEmpty else { return line }
            let start = Int.random(in: 0..<line.count, using: &random)
            let end = min(line.count, start + Int.random(in: 1...40, using: &random))
            return Array(line[..<end] + line[start...])
        default:  // a troublesome character put in
            let position = Int.random(in: 0...line.count, using: &random)
            return Array(line[..<position] + pick(Self.characters) + line[position...])
        }
    }

    /// Bytes that break lines and strings: controls, JSON punctuation, a BOM, separators,
    /// bytes that are not UTF-8. Never a line break: one case stays one line.
    static let characters: [[UInt8]] = [
        [0x00], [0x01], [0x1F], [0x7F], [0x0D], [0x09], [0x22], [0x5C], [0x7B], [0x7D], [0x5B], [0x5D], [0x2C], [0x3A],
        [0xEF, 0xBB, 0xBF], [0xE2, 0x80, 0xA8], [0xE2, 0x80, 0x8B], [0xFF], [0xC0, 0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80],
        Array("1e400".utf8), Array("-".utf8), Array("9".utf8),
    ]

    /// A value picked to break a reader, as JSON text (or not quite).
    private mutating func hostileValue() -> [UInt8] {
        switch Int.random(in: 0..<10, using: &random) {
        case 0...3:
            return Array(pick(Self.numbers).utf8)
        case 4:
            return Array(pick(Self.others).utf8)
        case 5:  // deep nesting, sometimes past the parser's limit
            let depth = Int.random(in: 1...(JSONValue.maximumDepth + 100), using: &random)
            let object = Bool.random(using: &random)
            let text =
                (object ? String(repeating: #"{"k":"#, count: depth) : String(repeating: "[", count: depth)) + "1"
                + String(repeating: object ? "}" : "]", count: depth)
            return Array(text.utf8)
        case 6:  // a long string
            let count = Int.random(in: 1...200_000, using: &random)
            return Array(("\"" + String(repeating: pick(["x", "é", "\u{FEFF}", "\\n", "😀"]), count: count) + "\"").utf8)
        case 7:  // invalid UTF-8 inside a string
            return [0x22] + pick([[0xFF], [0xC0, 0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]]) + [0x22]
        case 8:  // raw controls and characters that do not show inside a string
            return Array(("\"" + pick(["\u{0}", "\u{1}", "\t", "\u{7F}", "\u{FEFF}", "\u{2028}", "\u{200B}", "\u{A0}"]) + "x\"").utf8)
        default:  // an ID of the wrong shape or size
            return Array(pick(Self.ids).utf8)
        }
    }

    static let numbers = [
        "9223372036854775807", "-9223372036854775808", "18446744073709551616", "1e19", "1e400", "-1e400", "1E+308", "1.7976931348623157e308",
        "1.8e308", "9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740992", "4.9e-324", "1e-400", "-0", "0.5", "1.0",
        "123456789012345678901234567890", "1" + String(repeating: "0", count: 400), "0." + String(repeating: "0", count: 400) + "1", "01", "1.",
        "-", "+1", ".5", "1e", "NaN", "Infinity", "-Infinity",
    ]

    static let others = [
        "true", "false", "null", "{}", "[]", #""""#, #""\u0000""#, #""\ud800""#, #""\udc00\ud800""#, #""\uFEFF""#, #""\u2028""#, #""\x""#,
        #"{"a":1,"a":2}"#, #"{"a":{"b":1,"b":[1e400]}}"#, #"{"":1}"#, #"{"k":"v"}"#, #"["a",1,null]"#, #"{"a":1,}"#, "[1,]", #""unterminated"#,
        "[" + String(repeating: "1,", count: 5_000) + "1]",
    ]

    /// Values at the edge of the valid ones that any value (`value`, a property) may take.
    static let edgeValuesOfAnyField = [
        "1.7976931348623157e308", "-1.7976931348623157e308", "4.9e-324", "1e-400", "-0", "9007199254740993", #""\ufeff\u0000\u2028""#,
        #"{"a":{"b":[1,{"c":null}]}}"#, "[" + String(repeating: "[", count: 400) + String(repeating: "]", count: 400) + "]",
        "\"" + String(repeating: "y", count: 70_000) + "\"",
    ]

    /// Values that a field (by its key's JSON text) takes at the edge of the valid ones.
    static let edgeValues: [String: [String]] = {
        let ids = ["9007199254740991", "-9007199254740991", #"[9007199254740991,"k",-9007199254740991]"#, "0", "-0", #"[7,"\u2028"]"#, "[1]"]
        let values = edgeValuesOfAnyField
        return [
            #""id""#: ids, #""parent""#: ids + ["null"], #""index""#: ["9007199254740991", "-9007199254740991", "null", "0"],
            #""time""#: ["1.7976931348623157e308", "-1e300", "0", "4.9e-324", "null"],
            #""name""#: [#""\u2028""#, #""ünï 😀""#, "\"" + String(repeating: "n", count: 5_000) + "\""],
            #""namespace""#: ["null", #""""#, #""\ufeff""#], #""value""#: values, #""keyPath""#: [#""a.b""#, #""\u0000""#],
            #""properties""#: values.map { #"{"v":\#($0),"w":\#($0)}"# } + ["null", "{}"],
            #""attributes""#: values.map { #"{"v":\#($0)}"# } + ["null"],
        ]
    }()

    static let ids = [
        "[2,1e30]", #"[9007199254740993,"k"]"#, #"[1,"k",-1e400]"#, #"[1,"k",1.5]"#, "[1]", #"["a"]"#, "[[1]]", #"[1,"a",2,"b",3]"#, "1.5",
        "-1", "0", #""7""#, "[1,null]", #"[1,{"k":1}]"#, "[]",
    ]

    /// The members of a line as key and value texts, when it is a JSON object.
    private func members(of line: [UInt8]) -> [(key: [UInt8], value: [UInt8])]? {
        let value: JSONValue
        do {
            value = try line.withUnsafeBufferPointer { try JSONValue(parsingUTF8: $0) }
        } catch {
            return nil  // not JSON: the mutation falls to the byte-level ones
        }
        guard let object = value.objectValue else { return nil }
        return object.map { (Array(JSONValue.string($0.key).jsonText.utf8), Array($0.value.jsonText.utf8)) }
    }

    private func render(_ fields: [(key: [UInt8], value: [UInt8])]) -> [UInt8] {
        var line: [UInt8] = [0x7B]
        for (position, field) in fields.enumerated() {
            if position > 0 { line.append(0x2C) }
            line += field.key + [0x3A] + field.value
        }
        return line + [0x7D]
    }
}
