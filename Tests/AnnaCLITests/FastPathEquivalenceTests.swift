// The fast replay path against the full parser: every line, usual or hostile, must decode to
// the same encoded operation (or the same message) through EventStreamBatch as through
// EventStream.parse(line:) and OperationEncoder.encode.
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@testable import Anna

@Suite("Fast replay path: the same operations and messages as the full parser")
struct FastPathEquivalenceTests {
    /// Lines the fast path must take itself (not hand to the full parser).
    static let usualLines = [
        #"{"op":"register","id":1,"parent":null,"name":"__root__","time":1700000000000}"#,
        #"{"op":"register","id":7,"parent":1,"name":"master","namespace":"MasterViewController","index":3}"#,
        #"{"op":"register","id":8,"parent":7,"name":"cell","attributes":{"section":2,"kind":"plain","on":true,"x":null}}"#,
        #"{"op":"event","id":71,"name":"did-select","properties":{"source":"tap","row":3}}"#,
        #"{"op":"event","id":71,"name":"scroll","properties":{"x":1.5,"y":-0.25,"big":1e300},"time":1700000000001.5}"#,
        #"{"op":"event","id":71,"name":"ünï 😀","properties":{"ключ":"значение"}}"#,
        #"{"op":"event","id":71,"name":"tap","properties":{}}"#,
        #"{"op":"event","id":71,"name":"tap"}"#,
        #"{ "op" : "event" , "id" : 71 , "name" : "tap" , "properties" : null }"#,
        #"{"op":"update","id":71,"keyPath":"text","value":"Boots"}"#,
        #"{"op":"update","id":71,"keyPath":"text","value":null}"#,
        #"{"op":"update","id":71,"keyPath":"text"}"#,
        #"{"op":"appear","id":71}"#,
        #"{"op":"disappear","id":71,"time":5}"#,
        #"{"op":"deregister","id":7}"#,
        #"{"op":"event","id":9007199254740991,"name":"edge","properties":{"n":-9007199254740991}}"#,
        #"{"op":"event","id":1,"name":"long","properties":{"s":"\#(String(repeating: "y", count: 100))"}}"#,
        #"{"op":"register","id":2,"parent":1,"name":"row","index":null,"namespace":null,"attributes":null,"time":null}"#,
        #"{"op":"register","id":12345678,"parent":123456789,"name":"row","index":12345678901,"namespace":"N"}"#,
        #"{"op":"update","id":71,"keyPath":"a-key-path-longer-than-two-words","value":12345678901234}"#,
        #"{"op":"update","id":71,"keyPath":"flag","value":false,"time":17000000000001234}"#,
        #"{"op":"event","id":71,"name":"a name past eight bytes, é in it","properties":{"k":true,"k2":"v é past eight"}}"#,
        #"{"op":"event","id":71,"name":"tap","properties":{"n":12345678.5,"m":-12345678e-3}}"#,
        manyMembers(32),  // as many as the fast path compares
    ]

    /// An event whose properties have `count` members `k0`, `k1`, … (and `k0` again, `repeating`).
    static func manyMembers(_ count: Int, repeating: Bool = false) -> String {
        let members = (0..<count).map { #""k\#($0)":\#($0)"# } + (repeating ? [#""k0":0"#] : [])
        return #"{"op":"event","id":1,"name":"tap","properties":{"# + members.joined(separator: ",") + "}}"
    }

    /// Lines the full parser must take (or refuse), each with what makes it so.
    static let otherLines = [
        #"{"op":"register","id":[7,"table"],"parent":7,"name":"table"}"#,  // keyed ID
        #"{"op":"event","id":1,"name":"a\"b"}"#,  // escape
        #"{"op":"event","id":1,"name":"tap","properties":{"a":[1,2]}}"#,  // nested value
        #"{"op":"event","id":1,"name":"tap","properties":{"a":1,"a":2}}"#,  // duplicate key
        manyMembers(33), manyMembers(2_000, repeating: true),  // more members than the fast path compares
        #"{"op":"event","id":1,"name":"tap","properties":{"é":1,"é":2}}"#,  // canonically equal keys
        #"{"op":"event","id":1,"name":"tap","id":2}"#,  // duplicate field
        #"{"op":"event","id":1,"name":"tap","extra":1}"#,  // unknown field
        #"{"op":"event","id":1,"name":""}"#,  // empty name
        #"{"op":"event","id":1.5,"name":"tap"}"#,
        #"{"op":"event","id":9007199254740993,"name":"tap"}"#,
        #"{"op":"event","id":1,"name":"tap","time":1e400}"#,
        #"{"op":"register","id":1,"parent":null,"name":"r","index":1.5}"#,
        #"{"op":"snapshot"}"#, #"{"op":"version","version":1}"#, #"{"op":"version","version":2}"#, #"{"op":"teleport","id":1}"#,
        "", "   ", "// a comment", " \u{301}{}", "//\u{301} not a comment", "\u{FEFF}{\"op\":\"appear\",\"id\":1}",
        #"{"op":"appear","id":1} x"#, #"{"op":"appear","id":01}"#, #"{"op":"appear","id":-0}"#, "[1]", "{", "",
        #"{"op":"event","id":1,"name":"tap","time":"5"}"#,  // a type its key never takes
        #"{"op":"register","id":1,"name":"r","namespace":5}"#, #"{"op":"register","id":1,"name":"r","attributes":[]}"#,
        #"{"op":"appear","id":12345678901234567}"#, #"{"op":"appear","id":12345678.5}"#, #"{"op":"appear","id":1234567890123456}"#,
        #"{"opx":"appear","id":1}"#, #"{"op":"appear","id":1,"nam":1}"#, #"{"op":"appear","id":1,"names":1}"#, #"{"o"#,
        #"{"op":"event","id":1,"name":"tap","properties":{"a":1,"b":2,"a":3}}"#,
        #"{"op":"event","id":1,"name":"a name past eight bytes with a \n escape"}"#,
        #"{"op":"event","id":1,"name":"tap","properties":{"key past eight bytes":1,"key past eight bytes":2}}"#,
    ]

    @Test("usual lines take the fast path", arguments: usualLines)
    func usualLineIsFast(_ line: String) {
        var encoder = OperationEncoder()
        var decoder = EventStreamLineDecoder()
        var bytes = Array(line.utf8)
        #expect(bytes.withUnsafeMutableBytes { decoder.encode(UnsafeRawBufferPointer($0), into: &encoder) })
    }

    @Test("usual and other lines decode the same either way")
    func tableLinesDecodeTheSame() {
        var check = EquivalenceCheck()
        for line in Self.usualLines + Self.otherLines { check.compare(Array(line.utf8), place: line.debugDescription) }
    }

    @Test("generated hostile lines decode the same either way, or get the same message")
    func fuzzedLinesDecodeTheSame() {
        let settings = FuzzSettings.current
        var check = EquivalenceCheck()
        for number in 0..<settings.cases * 5 {
            var fuzzer = StreamFuzzer(validLines: StreamFuzzTests.session + Self.usualLines, random: settings.random(case: number, stream: 7))
            let bytes = number % 5 == 0 ? Array(fuzzer.validLines[number % fuzzer.validLines.count].utf8) : fuzzer.hostileLine()
            check.compare(bytes, place: "\(settings) case \(number)")
        }
    }
}

/// Feeds lines to both paths, each with its own encoder carried from line to line (so string
/// numbering is compared too), and compares what each line gave.
private struct EquivalenceCheck {
    var full = OperationEncoder()
    var fast = EventStreamBatch()

    mutating func compare(_ bytes: [UInt8], place: String) {
        let expected: String
        do {
            if let record = try EventStream.parse(line: String(decoding: bytes, as: UTF8.self)) {
                switch record.command {
                case let .operation(operation):
                    full.encode(operation, time: record.time)
                    expected = "operation"
                case .snapshot: expected = "snapshot"
                case let .version(version): expected = "version(\(version))"
                }
            } else {
                expected = "nothing"
            }
        } catch {
            expected = "error: \(error)"
        }
        let got: String
        do {
            switch try bytes.withUnsafeBytes({ try fast.add(line: $0) }) {
            case .operation: got = "operation"
            case .snapshot: got = "snapshot"
            case let .version(version): got = "version(\(version))"
            case .nothing: got = "nothing"
            }
        } catch {
            got = "error: \(error)"
        }
        #expect(got == expected, "\(place)")
        // What this line added (the earlier lines were compared already): linear, not quadratic.
        let (one, other) = (full.batch, fast.encoder.batch)
        func added<Element: Equatable>(_ path: KeyPath<EncodedOperations, [Element]>) -> Bool {
            let (mine, theirs) = (one[keyPath: path], other[keyPath: path])
            let from = min(compared[path] ?? 0, mine.count)
            compared[path] = mine.count
            return mine.count == theirs.count && mine[from...].elementsEqual(theirs[from...])
        }
        #expect(one.numbers.count == other.numbers.count, "numbers differ; \(place)")
        let from = min(comparedNumbers, one.numbers.count, other.numbers.count)
        #expect(one.numbers[from...].map(\.bitPattern) == other.numbers[from...].map(\.bitPattern), "numbers differ; \(place)")
        comparedNumbers = one.numbers.count
        #expect(added(\.starts) && added(\.literalStarts), "operations differ; \(place)")
        #expect(added(\.newStrings) && added(\.literals), "strings differ; \(place)")
    }

    /// How much of each array the earlier lines compared.
    private var compared: [AnyKeyPath: Int] = [:]
    private var comparedNumbers = 0
}
