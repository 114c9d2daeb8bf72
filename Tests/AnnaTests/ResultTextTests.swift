import CoreJS
import Foundation
import Testing

@testable import Anna

/// Results passed on as the text JavaScript wrote (``ResultTexts``) against results decoded
/// and written back (``JSONValue/jsonText``): byte for byte the same, errors too.
@Suite("Result texts: the same bytes as decoding and writing back")
struct ResultTextTests {
    /// Task bodies whose values test the edges of JSON text: numbers, escapes, Unicode,
    /// keys that decoding merges, nesting, values JSON writes its own way, and failures.
    static let values = [
        "'plain'", "42", "-0", "1.5", "0.1 + 0.2", "1e21", "1e-7", "2 ** 53 + 2", "-1e300", "5e-324", "NaN", "Infinity",
        "true", "null", "'é😀\\u2028\\u007f'", "'a\\u0000b\\u001fc\\b\\f\\n\\r\\t\"\\\\'", "'\\ud800'", "'x\\udc00y'",
        "({ K: 1, '\\u212A': 2 })", "({ 'é': 1, 'e\\u0301': 2 })", "({ 'é': 1 })", "({ a: { b: [1, { c: null }] } })",
        "new Map([[1, 2]])", "new Set([1, 'a'])", "new Error('boom')", "[1, [2, [3]], {}]", "[undefined, () => 1]",
        "JSON.parse('['.repeat(600) + ']'.repeat(600))", "JSON.parse('['.repeat(490) + ']'.repeat(490))",
        "({ toJSON() { return 'x'; } })", "'\\uFEFF'", "({ big: 12345678901234567, small: 123456789012345 })",
        "10n", "(() => { throw new Error('thrown'); })()",
        "'plain text past one word, then more'", "'sixteen bytes ok\\u0001then a control'", "'before é after é and past a word'",
        #"({ 'a key past eight bytes': 'a value past eight bytes', 'key2': 'ab\\cdefghijklmn\"opq' })"#,
    ]

    static var tasks: String {
        values.enumerated().map { "match('e\($0.offset)', (n) => \($0.element));" }.joined(separator: "\n")
            + "\nmatch('all', (n) => 'first');\nmatch('all', (n) => [1.25, 'é']);\n"
    }

    /// The events: each value's alone, then all in one batch, then an event with no task.
    static var lines: [String] {
        [#"{"op":"register","id":1,"parent":null,"name":"root"}"#]
            + values.indices.map { #"{"op":"event","id":1,"name":"e\#($0)"}"# }
            + [#"{"op":"event","id":1,"name":"all"}"#, #"{"op":"event","id":2,"name":"nobody"}"#]
    }

    @Test("every value prints the same; errors are the same and in the same places")
    func textsEqualDecodedResults() throws {
        var decoded: [String] = []
        var decodedMetas: [ResultMeta?] = []
        let old = try moduleEngine(tasks: Self.tasks)
        var oldErrors: [String] = []
        let operations = try Self.lines.compactMap { try EventStream.parse(line: $0) }.compactMap { record -> TimedOperation? in
            guard case let .operation(operation) = record.command else { return nil }
            return TimedOperation(operation, time: record.time)
        }
        old.apply(operations).forEach {
            decoded.append($0.value.jsonText)
            decodedMetas.append($0.meta)
        } error: {
            oldErrors.append("\($0): \($1)")
        }

        var texts: [String] = []
        var textMetas: [ResultMeta?] = []
        var batches = 0
        let new = try AnalyticsEngine(configuration: old.configuration)
        var batch = EventStreamBatch()
        for line in Self.lines {
            var bytes = Array(line.utf8)
            _ = try bytes.withUnsafeMutableBytes { try batch.add(line: UnsafeRawBufferPointer($0)) }
        }
        var newErrors: [String] = []
        new.apply(&batch).forEachText { results in
            batches += 1
            results.forEachResult { json, meta, _ in
                texts.append(String(decoding: json, as: UTF8.self))
                textMetas.append(meta)
            }
        } error: {
            newErrors.append("\($0): \($1)")
        }

        #expect(texts == decoded)
        #expect(textMetas == decodedMetas)
        #expect(newErrors == oldErrors)
        #expect(decoded.count > Self.values.count - 4)
        #expect(batches > 0)
    }

    @Test("the scanner passes usual text on and gives up where writing back would differ")
    func scannerAcceptsOnlyWhatWritesBackTheSame() {
        func scan(_ text: String) -> [String]? {
            var text = text
            return text.withUTF8 { bytes in
                ResultTextScanner.scan(UnsafeRawBufferPointer(bytes))?.map {
                    String(decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[$0]), as: UTF8.self)
                }
            }
        }
        #expect(scan(#"[{"a":1,"b":[true,null,"x"]},"v2",1.5]"#) == [#"{"a":1,"b":[true,null,"x"]}"#, #""v2""#, "1.5"])
        #expect(scan("[]") == [])
        #expect(scan(#"["\u0001\n"]"#) == [#""\u0001\n""#])
        for text in [
            #"["\ud800"]"#, #"["\u000a"]"#, #"["\u001F"]"#, #"["\/"]"#, "[-0]", "[1e21]", "[1.50]",
            #"[{"K":1,"\#u{212A}":2}]"#, "[ 1]", "[1", #"["\#u{1}"]"#, "[01]", "[1 ]", "[1,]",
        ] {
            #expect(scan(text) == nil, "\(text)")
        }
    }
}
