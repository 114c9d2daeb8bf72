import Anna
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// Operations with generated properties (any string, key or number JSON can carry, nested)
/// go through the bridge's encoder and decoder to a task that sends them back: each must
/// come back equal, whatever it holds. ANNA_FUZZ_CASES and ANNA_FUZZ_SEED choose the cases
/// (docs/fuzzing.md).
@Suite("The bridge on generated properties")
struct BridgeFuzzTests {
    /// Generates JSON values meant to trip an encoder: keys the core or JavaScript treat
    /// specially, strings of controls, separators and astral characters, numbers at the edges.
    private struct ValueGenerator {
        var random: SplitMix64

        mutating func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }

        mutating func key() -> String {
            random.next() % 3 == 0
                ? pick(["__proto__", "toJSON", "constructor", "length", "0", "", "key-path", "value", "\u{0}anna-slow", "a.b", "then"])
                : string()
        }

        mutating func string() -> String {
            let pieces = ["a", "é", "e\u{301}", "\u{0}", "\n", "\u{2028}", "\u{FEFF}", "\"", "\\", "😀", "\u{10FFFF}", "漢", " ", "\u{7F}"]
            return (0..<Int(random.next() % 6)).map { _ in pick(pieces) }.joined()
        }

        mutating func number() -> Double {
            pick([0, -0.0, 1, -1, 0.1, 1e-300, 1.7976931348623157e308, -9_007_199_254_740_991, 9_007_199_254_740_991, 2.5e-8])
                + Double(random.next() % 1000)
        }

        mutating func value(depth: Int) -> JSONValue {
            switch random.next() % (depth > 4 ? 4 : 6) {
            case 0: return .string(string())
            case 1: return .number(number())
            case 2: return .bool(random.next() % 2 == 0)
            case 3: return .null
            case 4: return .array((0..<Int(random.next() % 4)).map { _ in value(depth: depth + 1) })
            default: return object(depth: depth + 1)
            }
        }

        mutating func object(depth: Int) -> JSONValue {
            var members: [(String, JSONValue)] = []
            for _ in 0..<Int(random.next() % 5) {
                let name = key()
                if !members.contains(where: { $0.0 == name }) { members.append((name, value(depth: depth))) }
            }
            return .object(.init(uniqueKeysWithValues: members))
        }
    }

    @Test("every event's properties come back from a task as they were sent")
    func propertiesRoundTrip() throws {
        let settings = FuzzSettings.current
        let tasks = "match('echo', (node) => node.latestEvent().attributes);"
        var values: [JSONValue] = []
        let engine = try moduleEngine(tasks: tasks)
        values += try engine.registerNode(id: NodeID(1), parent: nil, name: "root").map(\.value)
        var generator = ValueGenerator(random: settings.random(case: 0, stream: 3))
        let sent = (0..<max(1, settings.cases / 2)).map { _ in generator.object(depth: 0) }
        var errors: [String] = []
        engine.apply(sent.map { TimedOperation(.event(id: NodeID(1), name: "echo", properties: $0)) }).forEach {
            values.append($0.value)
        } error: { _, error in
            errors.append("\(error)")
        }
        #expect(errors == [], "\(settings)")
        #expect(values.count == sent.count, "\(settings)")
        // An event's attributes are its properties plus `time` (the generator makes no key `time`).
        let received = values.map { value -> JSONValue in
            guard case var .object(members) = value else { return value }
            members.removeValue(forKey: "time")
            return .object(members)
        }
        for (index, (got, expected)) in zip(received, sent).enumerated() where got != expected {
            Issue.record("case \(index) of \(settings): sent \(expected.jsonText), got \(got.jsonText)")
            break
        }
    }
}
