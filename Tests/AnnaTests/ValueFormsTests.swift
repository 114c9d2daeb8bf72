import Anna
import CoreJS
import Foundation
import Testing

/// The JSON forms of Swift values sent to tasks, and what an equal assignment records.
@Suite("Value forms")
struct ValueFormsTests {
    @Test("numbers stay numbers while JavaScript holds them exactly, else decimal strings")
    func numbers() {
        #expect(Float(0.1).jsonValue == .number(0.1))
        #expect(Float.infinity.jsonValue == .null)
        #expect(Int64(42).jsonValue == .number(42))
        #expect(Int64(9_007_199_254_740_993).jsonValue == .string("9007199254740993"))
        #expect(Int64(-9_007_199_254_740_993).jsonValue == .string("-9007199254740993"))
        #expect(UInt(7).jsonValue == .number(7))
        #expect(UInt64.max.jsonValue == .string("18446744073709551615"))
        #expect(Decimal(string: "12.5")!.jsonValue == .number(12.5))
    }

    @Test("dates as JavaScript's toJSON writes them; UUIDs and URLs as text")
    func texts() throws {
        let date = Date(timeIntervalSince1970: 1_714_566_600.25)
        #expect(date.jsonValue == .string("2024-05-01T12:30:00.250Z"))
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(uuid.jsonValue == .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(URL(string: "https://example.com/a?b=1")!.jsonValue == .string("https://example.com/a?b=1"))
    }

    @Test("any Encodable, with dates in the same form")
    func encodable() throws {
        struct Order: Encodable {
            var id: Int
            var items: [String]
            var placed: Date
        }
        let order = Order(id: 7, items: ["shoes"], placed: Date(timeIntervalSince1970: 0))
        #expect(
            try JSONValue(encoding: order)
                == ["id": 7, "items": ["shoes"], "placed": "1970-01-01T00:00:00.000Z"])
        #expect(try JSONValue(encoding: Double.nan) == .null)
        #expect(throws: ValueEncodingError.self) { try JSONValue(encoding: [Double.nan]) }
    }

    @Test("an assignment of an equal value notifies nobody")
    func equalAssignment() {
        let value = ObservableValue("a")
        let count = Locked(0)
        _ = value.addObserver { _ in count.withLock { $0 += 1 } }
        value.value = "a"
        value.value = "b"
        value.value = "b"
        #expect(count.withLock { $0 } == 1)
    }

    @Test("the collecting delegate keeps results and errors and calls its closures")
    func collectingDelegate() async throws {
        let module = FileManager.default.temporaryDirectory.appendingPathComponent("collecting-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: module.appendingPathComponent("task"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: module) }
        try Data("module.exports = require('anna').configured({ task: __dirname + '/task' });\n".utf8)
            .write(to: module.appendingPathComponent("index.js"))
        try Data("match('tap', (node) => node.path);\nmatch('boom', () => { throw new Error('boom'); });\n".utf8)
            .write(to: module.appendingPathComponent("task/index.js"))
        let seen = Locked<[JSONValue]>([])
        let delegate = CollectingDelegate(onResult: { result in seen.withLock { $0.append(result.value) } }, onError: { _ in })
        let manager = Manager(moduleURL: module)
        manager.delegate = delegate
        let root = RootAnalyzer(manager: manager)
        let node = root.keyedSubAnalyzer(for: "button")
        node.record("tap")
        node.record("boom")
        await manager.flush()
        #expect(delegate.results.map(\.value) == ["/button"])
        #expect(seen.withLock { $0 } == ["/button"])
        #expect(delegate.errors.count == 1)
    }
}
