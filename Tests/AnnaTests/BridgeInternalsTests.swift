import CoreJS
import Testing

@testable import Anna

@Suite("Bridge internals: string numbering and the work queue")
struct BridgeInternalsTests {
    @Test("strings are numbered by exact bytes, in first-seen order, past many table growths")
    func interner() {
        var interner = StringInterner()
        var seen: [[Int]] = []
        for text in ["did-select", "ana-updated", "did-select", "\u{E9}", "e\u{301}", "", ""] {
            let (number, isNew) = interner.number(of: text)
            seen.append([number, isNew ? 1 : 0])
        }
        // "\u{E9}" and "e\u{301}" are equal Swift strings but different JavaScript ones.
        #expect(seen == [[0, 1], [1, 1], [0, 0], [2, 1], [3, 1], [4, 1], [4, 0]])
        let many = (0..<5_000).map { "key-\($0)-of-a-string-longer-than-fifteen-bytes" }
        let first = many.map { interner.number(of: $0) }
        let again = many.map { interner.number(of: $0) }
        #expect(first.map(\.number) == Array(5..<5_005) && first.allSatisfy(\.isNew))
        #expect(again.map(\.number) == Array(5..<5_005) && !again.contains(where: \.isNew))
        #expect(interner.number(of: "e\u{301}").number == 3)
        #expect(interner.count == 5_005)
        interner.removeAll()
        #expect(interner.count == 0)
        #expect(interner.number(of: "ana-updated").number == 0)
    }

    @Test("the work queue hands out chunks in order, with each task between the right operations")
    func workQueueOrder() {
        var queue = WorkQueue()
        let firstSchedules = queue.scheduleDrain()
        let secondSchedules = queue.scheduleDrain()
        #expect(firstSchedules && !secondSchedules)
        let total = WorkQueue.chunkSize * 2 + 10
        var sent: [String] = []
        for index in 0..<total {
            if index % 1_000 == 7 {
                queue.append(.barrier {})
                sent.append("task")
            }
            queue.append(.event(id: NodeID(index), name: "event-\(index % 3)", properties: [:]), time: Double(index))
            sent.append("event-\(index % 3) on \(index) at \(index)")
        }
        var received: [String] = []
        var chunks = 0
        var table = StringTableMirror()
        while var chunk = queue.takeChunk() {
            chunks += 1
            #expect(chunk.operations.count + chunk.tasks.count <= WorkQueue.chunkSize)
            table.add(chunk.operations)
            let decoder = OperationDecoder(batch: chunk.operations, table: table)
            var start = 0
            for (position, _) in chunk.tasks {
                received += (start..<position).map { Self.describe(decoder.operation(at: $0)) }
                received.append("task")
                start = position
            }
            received += (start..<chunk.operations.count).map { Self.describe(decoder.operation(at: $0)) }
            chunk.removeAll()
            queue.recycle(chunk)
        }
        #expect(received == sent)
        #expect(chunks == 3)
        #expect(table.strings == ["event-0", "event-1", "event-2"])
        // Empty: the next sender schedules a drain again.
        let schedulesAgain = queue.scheduleDrain()
        #expect(schedulesAgain)
    }

    @Test("encoded operations read back as they were sent, across batches and a table reset")
    func encodingRoundTrip() {
        let long = String(repeating: "long text ", count: 10)
        let operations: [TimedOperation] = [
            TimedOperation(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil), time: 5),
            TimedOperation(
                .register(
                    id: NodeID(owner: 1, keys: [.name("section"), .index(2)]), parent: NodeID(1), name: "section", index: 2,
                    namespace: "Table", attributes: ["kind": "grouped", "rows": 3]), time: nil),
            TimedOperation(
                .event(
                    id: NodeID(owner: 1, keys: [.name("section"), .index(2)]), name: "ana-updated",
                    properties: [
                        "key-path": "text", "value": .string(long), "flags": [true, false, nil, 1.5], "nested": ["a": ["b": 1]],
                    ]), time: 7),
            TimedOperation(.event(id: NodeID(9), name: "scroll", properties: "not an object"), time: 8),
            TimedOperation(.event(id: NodeID(9), name: "tap", properties: .null), time: 9),
            TimedOperation(.deregister(id: NodeID(1)), time: 10),
        ]
        var encoder = OperationEncoder()
        var table = StringTableMirror()
        var decoded: [TimedOperation] = []
        for half in [operations[..<3], operations[3...]] {
            encoder.beginBatch()
            for item in half { encoder.encode(item.operation, time: item.time) }
            table.add(encoder.batch)
            let decoder = OperationDecoder(batch: encoder.batch, table: table)
            decoded += (0..<half.count).map(decoder.operation(at:))
        }
        #expect(decoded == operations)
        #expect(table.strings.contains("ana-updated") && !table.strings.contains(long))
        // A batch that starts the table over is read against the new table only.
        let generation = table.generation
        var restarted = EncodedOperations()
        restarted.resetsTable = true
        restarted.newStrings = ["fresh"]
        table.add(restarted)
        #expect(table.strings == ["fresh"] && table.generation == generation + 1)
    }

    @Test("events encoded from their parts read back as the object they stand for")
    func eventPropertiesEncoding() {
        let cases: [EventProperties] = [
            .update(keyPath: "text", value: "v1"),
            .update(keyPath: "text", value: nil),
            .attributes([:]),
            .attributes(["x": 3]),
            .attributes(["zeta": 1, "alpha": "a", "gone": .undefined, "mid": [1, 2]]),
            .value(["b": 1, "a": 2]),
            .value("whole"),
        ]
        var encoder = OperationEncoder()
        for (number, properties) in cases.enumerated() {
            encoder.encodeEvent(id: NodeID(number), name: "event", properties: properties, time: Double(number))
        }
        var table = StringTableMirror()
        table.add(encoder.batch)
        let decoder = OperationDecoder(batch: encoder.batch, table: table)
        let decoded = (0..<cases.count).map { decoder.operation(at: $0) }
        let members = decoded.map { item -> [String] in
            guard case let .event(_, _, .object(object)) = item.operation else { return [] }
            return object.map { "\($0.key)=\($0.value.jsonText)" }
        }
        #expect(members[0] == ["key-path=\"text\"", "value=\"v1\""])
        #expect(members[1] == ["key-path=\"text\""])
        #expect(decoded[2].operation == .event(id: NodeID(2), name: "event", properties: .object([:])))
        #expect(members[2] == [] && members[3] == ["x=3"])
        #expect(members[4] == ["alpha=\"a\"", "mid=[1,2]", "zeta=1"])
        #expect(members[5] == ["b=1", "a=2"])
        #expect(decoded[6].operation == .event(id: NodeID(6), name: "event", properties: "whole"))
        #expect(decoded.map(\.time) == (0..<cases.count).map { Double($0) })
    }

    @Test("an update encodes as the object it stands for, also once the string table starts over")
    func updates() {
        let id = NodeID(owner: 3, keys: [.name("cell"), .index(2)])
        let cases: [(name: String, properties: EventProperties, object: JSONValue)] = [
            ("ana-updated", .update(keyPath: "text", value: "v1"), ["key-path": "text", "value": "v1"]),
            ("ana-updated", .update(keyPath: "text", value: nil), ["key-path": "text"]),
            ("changed", .update(keyPath: "n", value: .undefined), ["key-path": "n"]),
            ("ana-updated", .update(keyPath: "n", value: [1, ["a": nil]]), ["key-path": "n", "value": [1, ["a": nil]]]),
        ]
        var encoder = OperationEncoder()
        var table = StringTableMirror()
        for round in 0..<3 {
            if round == 2 {
                // Fill the table so that the next batch starts it over: the fixed strings' numbers are stale.
                encoder.beginBatch()
                for number in 0..<OperationEncoder.tableLimit { _ = encoder.string("s\(number)") }
                table.add(encoder.batch)
            }
            encoder.beginBatch()
            for (name, properties, _) in cases {
                encoder.encodeEvent(id: id, name: name, properties: properties, time: Double(round))
            }
            table.add(encoder.batch)
            let decoder = OperationDecoder(batch: encoder.batch, table: table)
            let decoded = (0..<cases.count).map { decoder.operation(at: $0) }
            #expect(decoded == cases.map { TimedOperation(.event(id: id, name: $0.name, properties: $0.object), time: Double(round)) })
        }
        #expect(encoder.batch.resetsTable)
    }

    @Test("results text that does not parse is an error after the results read before it, never a silent loss")
    func unparsableResults() {
        let pending = PendingResults(text: Array(#"["first","sec"#.utf8), index: [0, -1, 1, -1], metas: [])
        var values: [JSONValue] = []
        #expect(throws: AnalyticsError.self) { try pending.forEachResult { values.append($1.value) } }
        #expect(values == ["first"])
    }

    @Test(
        "a value without a readable entry in the results' index is an error after the values before it",
        arguments: [[3, 0], [3, 0, .nan, 0], [3, 0, 1, .infinity], [3, 0, 0.5, 0]] as [[Double]])
    func valueWithoutIndexEntry(index: [Double]) {
        let meta = ResultMeta(task: "t", path: "/a", event: "e")
        let pending = PendingResults(text: Array(#"["first","second"]"#.utf8), index: index, metas: [meta], times: [1, 2, 3, 4])
        var seen: [(offset: Int, result: AnalyticsResult)] = []
        #expect {
            try pending.forEachResult { seen.append(($0, $1)) }
        } throws: { error in
            "\(error)".contains("value 2 has no entry in the results' index (\(index.count / 2) entries)")
        }
        #expect(seen.map(\.offset) == [3])
        #expect(seen.map(\.result) == [AnalyticsResult(value: "first", meta: meta, time: 4)])
        // Passing the text on as it is needs a readable entry for every value too.
        #expect(ResultTexts(scanning: pending) == nil)
    }

    @Test("the bridge's JavaScript half reads exactly the names of the wire table")
    func wireNamesAgree() throws {
        let bridge = try ModuleBridge(context: JavaScriptContext(), debug: false)
        #expect(bridge.wireNames.sorted() == BridgeWire.names)
        #expect(BridgeWire.names.contains("valueTag.json") && BridgeWire.names.contains("idKind.absent"))
    }

    private static func describe(_ item: TimedOperation) -> String {
        guard case let .event(id, name, _) = item.operation else { return "?" }
        return "\(name) on \(id.owner) at \(Int(item.time ?? -1))"
    }
}
