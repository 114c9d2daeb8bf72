import Anna
import CoreJS
import Foundation
import OrderedCollections
import Testing

@Suite("A result's analytics call: track, screen, identify, and the rule for plain results")
struct AnalyticsCallTests {
    static let meta = ResultMeta(task: "home/cart/did-select", path: "/home/cart", event: "did-select")

    struct Case: CustomTestStringConvertible, Sendable {
        let value: JSONValue
        let call: AnalyticsCall
        var testDescription: String { value.jsonText }
    }

    static let cases: [Case] = [
        Case(value: ["type": "track", "event": "Added", "properties": ["sku": "A1"]], call: .track(event: "Added", properties: ["sku": "A1"])),
        Case(value: ["type": "screen", "name": "Home", "properties": [:]], call: .screen(name: "Home", properties: [:])),
        Case(value: ["type": "identify", "userId": "u-1", "traits": ["plan": "pro"]], call: .identify(userId: "u-1", traits: ["plan": "pro"])),
        Case(value: ["event": "cart_badge", "count": 2, "seen": false], call: .track(event: "cart_badge", properties: ["count": 2, "seen": false])),
        Case(value: ["event": "Added", "properties": ["sku": "A1"], "extra": 1], call: .track(event: "Added", properties: ["sku": "A1"])),
        Case(value: ["type": "screen", "name": "Cart", "items": 3], call: .screen(name: "Cart", properties: ["items": 3])),
        Case(value: ["action": "viewed"], call: .track(event: meta.task, properties: ["value": ["action": "viewed"]])),
        Case(value: ["event": 3], call: .track(event: meta.task, properties: ["value": ["event": 3]])),
        Case(value: ["type": "identify"], call: .track(event: meta.task, properties: ["value": ["type": "identify"]])),
        Case(value: "fine", call: .track(event: meta.task, properties: ["value": "fine"])),
        Case(value: [1, 2], call: .track(event: meta.task, properties: ["value": [1, 2]])),
        Case(value: .null, call: .track(event: meta.task, properties: ["value": .null])),
    ]

    @Test("each kind of result maps by the documented rule", arguments: cases)
    func rule(_ example: Case) {
        #expect(AnalyticsCall(AnalyticsResult(value: example.value, meta: Self.meta)) == example.call)
    }

    @Test("a plain value without a meta is a track named 'result'")
    func withoutMeta() {
        #expect(AnalyticsCall(AnalyticsResult(value: 42)) == .track(event: "result", properties: ["value": 42]))
    }

    @Test("tasks calling track, screen and identify give those calls, through the engine")
    func fromTasks() throws {
        let engine = try moduleEngine(
            tasks: """
                match('tap', (node) => track('Tapped', { node: node.nodeName, n: 1 }));
                match('show', () => screen('Home', { tab: 2 }));
                match('login', () => identify('user-1', { plan: 'pro' }));
                match('tap', () => ({ event: 'legacy', count: 2 }));
                """)
        _ = try engine.registerNode(id: NodeID(1), parent: nil, name: "root")
        var calls: [AnalyticsCall] = []
        for event in ["tap", "show", "login"] { calls += try engine.recordEvent(name: event, nodeID: NodeID(1)).map(AnalyticsCall.init) }
        #expect(
            calls == [
                .track(event: "Tapped", properties: ["node": "root", "n": 1]), .track(event: "legacy", properties: ["count": 2]),
                .screen(name: "Home", properties: ["tab": 2]), .identify(userId: "user-1", traits: ["plan": "pro"]),
            ])
    }
}
