import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@testable import Anna

/// Lines written to break a reader: numbers past what JavaScript holds, infinities, repeated
/// keys, characters that do not show. Each is a ``EventStream/FormatError`` with a message
/// that says what is wrong; none traps.
@Suite("Event stream: hostile lines", .timeLimit(.minutes(5)))
struct HostileStreamTests {
    static let idRange = "within ±9007199254740991 (2^53 − 1, the integers JavaScript holds exactly)"
    static let infinity = "is out of range (it would be Infinity, which JSON cannot carry)"

    @Test(
        "an ID, parent, owner or key past 2^53 − 1 is refused, not trapped on or rounded onto another node",
        arguments: [
            (
                #"{"op":"register","id":9223372036854775807,"parent":1,"name":"x"}"#,
                "field 'id' must be a node ID of integers \(idRange), got 9223372036854776000"
            ),
            (#"{"op":"event","id":1e19,"name":"x"}"#, "field 'id' must be a node ID of integers \(idRange), got 10000000000000000000"),
            (#"{"op":"appear","id":[2,1e30]}"#, "field 'id' must be a node ID of integers \(idRange), got [2,1e+30]"),
            (
                #"{"op":"register","id":2,"parent":9007199254740992,"name":"x"}"#,
                "field 'parent' must be a node ID of integers \(idRange), got 9007199254740992"
            ),
            (
                #"{"op":"deregister","id":[-9007199254740993,"k"]}"#,
                #"field 'id' must be a node ID of integers \#(idRange), got [-9007199254740992,"k"]"#
            ),
            (
                #"{"op":"disappear","id":[1,"k",18446744073709551616]}"#,
                #"field 'id' must be a node ID of integers \#(idRange), got [1,"k",18446744073709552000]"#
            ),
            (#"{"op":"deregister","id":1e400}"#, "number 1e400 in 'id' \(infinity)"),
            (#"{"op":"deregister","id":[1,-1e400]}"#, "number -1e400 in 'id[1]' is out of range (it would be -Infinity, which JSON cannot carry)"),
            (#"{"op":"register","id":2,"parent":1,"name":"x","index":1e16}"#, "field 'index' must be an integer \(idRange), got 10000000000000000"),
            (#"{"op":"version","version":1e300}"#, "field 'version' must be an integer \(idRange), got 1e+300"),
            (#"{"op":"event","id":1.5,"name":"x"}"#, "field 'id' must be a node ID (an integer or [owner, key, …]), got 1.5"),
        ])
    func bigIntegers(line: String, message: String) {
        #expect(throws: EventStream.FormatError(message)) { try EventStream.parse(line: line) }
    }

    @Test("IDs at ±(2^53 − 1) are read exactly")
    func largestIDs() throws {
        let line = #"{"op":"register","id":[-9007199254740991,"k",9007199254740991],"parent":9007199254740991,"name":"x","index":-9007199254740991}"#
        let expected = ModuleOperation.register(
            id: NodeID(owner: -9_007_199_254_740_991, keys: [.name("k"), .index(9_007_199_254_740_991)]), parent: NodeID(9_007_199_254_740_991),
            name: "x", index: -9_007_199_254_740_991, namespace: nil, attributes: nil)
        #expect(try EventStream.parse(line: line) == EventStream.Record(command: .operation(expected)))
        #expect(try EventStream.parse(line: EventStream.line(for: expected)) == EventStream.Record(command: .operation(expected)))
    }

    @Test(
        "NodeID(json:) is nil for a number JavaScript does not hold exactly",
        arguments: [
            JSONValue.number(0x1p63), 1e19, 0x1p53, -0x1p53, .number(.infinity), .number(-.infinity), .number(.nan), [2, 1e30], [0x1p63, "k"],
            [1, .number(.nan)], [.number(.infinity)],
        ] as [JSONValue])
    func nodeIDNeverTraps(json: JSONValue) {
        #expect(NodeID(json: json) == nil)
    }

    @Test(
        "a number too large for a double is refused wherever it is, named by its key",
        arguments: [
            (#"{"op":"snapshot","time":1e400}"#, "number 1e400 in 'time' \(infinity)"),
            (#"{"op":"event","id":1,"name":"x","properties":{"big":1e400}}"#, "number 1e400 in 'properties.big' \(infinity)"),
            (#"{"op":"update","id":1,"keyPath":"k","value":[0,{"v":1e999}]}"#, "number 1e999 in 'value[1].v' \(infinity)"),
            (#"{"op":"register","id":1,"parent":null,"name":"x","attributes":{"a b":1E+400}}"#, "number 1E+400 in 'attributes.a b' \(infinity)"),
        ])
    func infiniteNumbers(line: String, message: String) {
        #expect(throws: EventStream.FormatError(message)) { try EventStream.parse(line: line) }
    }

    @Test(
        "a key given twice is refused, at the top or nested",
        arguments: [
            (#"{"op":"event","id":1,"name":"x","id":2}"#, "duplicate key 'id'"),
            (#"{"op":"event","id":1,"name":"x","properties":{"source":"tap","source":"key"}}"#, "duplicate key 'source' in 'properties'"),
            (#"{"op":"update","id":1,"keyPath":"k","value":{"list":[{"a":1,"a":1}]}}"#, "duplicate key 'a' in 'value.list[0]'"),
            (#"{"op":"op","op":"snapshot"}"#, "duplicate key 'op'"),
        ])
    func duplicateKeys(line: String, message: String) {
        #expect(throws: EventStream.FormatError(message)) { try EventStream.parse(line: line) }
    }

    @Test(
        "characters that do not show are named in messages; long values are cut",
        arguments: [
            ("\u{FEFF}{\"op\":\"snapshot\"}", "invalid JSON at column 1: unexpected character U+FEFF (a byte order mark)"),
            (
                "{\"op\":\"snap\u{FEFF}shot\"}",
                "unknown op 'snap<U+FEFF>shot' (expected register, event, update, appear, disappear, deregister, snapshot, version)"
            ),
            ("{\"op\":\"snapshot\",\"\u{200B}time\":1}", "unknown field '<U+200B>time' for op 'snapshot'"),
            (
                "{\"op\":\"event\",\"id\":[\"\\u2028\"],\"name\":\"x\"}",
                "field 'id' must be a node ID (an integer or [owner, key, …]), got [\"<U+2028>\"]"
            ),
            (
                "{\"op\":\"event\",\"id\":\"\\ufeff\",\"name\":\"x\"}",
                "field 'id' must be a node ID (an integer or [owner, key, …]), got \"<U+FEFF>\""
            ),
            ("{\"op\":\"event\",\"id\":1,\"name\":\"\u{1}\"}", "invalid JSON at column 30: control character U+0001 in a string"),
            (
                "{\"op\":\"event\",\"id\":1,\"name\":\"x\",\"properties\":\"\u{7F}\\u0000\"}",
                "field 'properties' must be an object, got \"<U+007F>\\u0000\""
            ),
            (
                "{\"op\":\"event\",\"id\":\"\(String(repeating: "x", count: 5_000))\",\"name\":\"x\"}",
                "field 'id' must be a node ID (an integer or [owner, key, …]), got \"\(String(repeating: "x", count: 79))…"
            ),
        ])
    func visibleMessages(line: String, message: String) {
        #expect(throws: EventStream.FormatError(message)) { try EventStream.parse(line: line) }
    }
}

@Suite("Event stream: the largest IDs through a Manager", .timeLimit(.minutes(5)))
struct LargestIDManagerTests {
    @Test("IDs at ±(2^53 − 1) from a stream reach tasks, errors and the recording exactly; larger ones never reach the Manager")
    func largestIDsThroughManager() async throws {
        let folder = try TemporaryFolder()
        let recording = folder.url.appendingPathComponent("recorded.ndjson")
        let manager = Manager(
            moduleURL: URL(fileURLWithPath: "/m"),
            dependency: .init(
                fileAccess: moduleFiles(tasks: "match('tap', (node) => [node.path, node.index])"),
                standardOutput: MemoryOutputSink(), recordingURL: recording))
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        let stream = """
            {"op":"register","id":1,"parent":null,"name":"__root__","time":1}
            {"op":"register","id":9007199254740991,"parent":1,"name":"screen","time":2}
            {"op":"register","id":[9007199254740991,"list",-9007199254740991],"parent":9007199254740991,"name":"list","index":9007199254740991,"time":3}
            {"op":"event","id":[9007199254740991,"list",-9007199254740991],"name":"tap","time":4}
            {"op":"register","id":9007199254740992,"parent":1,"name":"other","time":5}
            {"op":"event","id":-9007199254740991,"name":"tap","time":6}
            {"op":"deregister","id":[1,1e30],"time":7}
            """
        var sent: [TimedOperation] = []
        var refused: [String] = []
        for line in stream.split(separator: "\n") {
            do {
                guard let record = try EventStream.parse(line: String(line)), case let .operation(operation) = record.command else { continue }
                sent.append(TimedOperation(operation, time: record.time))
                manager.send(operation, time: record.time ?? 0)
            } catch {
                refused.append("\(error)")
            }
        }
        await manager.flush()
        #expect(refused.count == 2)
        #expect(delegate.values == [["/screen/list", 9_007_199_254_740_991]])
        #expect(
            delegate.errorDescriptions.map { $0.components(separatedBy: ": NodeError").first ?? $0 } == [
                "recording 'tap' on node -9007199254740991 failed"
            ])
        let recorded = try String(contentsOf: recording, encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(
            try recorded.map { try EventStream.parse(line: String($0)) }
                == sent.map { EventStream.Record(command: .operation($0.operation), time: $0.time) })
    }
}
