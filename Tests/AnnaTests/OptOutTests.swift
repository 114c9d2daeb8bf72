import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@testable import Anna

@Suite("Opting out: no event reaches the module, nothing is stored, the recording pauses", .timeLimit(.minutes(5)))
struct OptOutTests {
    @Test("events recorded while opted out are dropped; nodes still register; opting in tracks again")
    func optOutAndIn() async throws {
        let folder = try TemporaryFolder()
        let recording = folder.url.appendingPathComponent("recorded.ndjson")
        var dependency = Manager.Dependency(
            fileAccess: moduleFiles(tasks: "match('tap', (node) => node.path + ' ' + node.latestEvent().attributes.n)"),
            standardOutput: MemoryOutputSink(), recordingURL: recording)
        let sink = RedactionTests.KeepingSink()
        dependency.outbox = sink
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/m"), dependency: dependency)
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        let tap = { (node: Int, n: Int) in
            manager.sendEvent(id: NodeID(node), name: "tap", properties: .value(["n": .number(Double(n))]), time: 1000 + Double(n))
        }
        manager.send(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil))
        manager.send(.register(id: NodeID(2), parent: NodeID(1), name: "home", index: nil, namespace: nil, attributes: nil))
        tap(2, 1)
        #expect(!manager.isOptedOut)
        manager.optOut()
        #expect(manager.isOptedOut)
        tap(2, 2)
        manager.send(.event(id: NodeID(2), name: "tap", properties: ["n": 3]))
        manager.send(.register(id: NodeID(3), parent: NodeID(2), name: "cart", index: nil, namespace: nil, attributes: nil))
        manager.optIn()
        #expect(!manager.isOptedOut)
        tap(3, 4)  // a node registered while opted out is in the tree
        await manager.flush()
        #expect(delegate.values == ["/home 1", "/home/cart 4"])
        #expect(sink.values == delegate.values)
        let recorded = try String(contentsOf: recording, encoding: .utf8).split(separator: "\n")
        let events = recorded.filter { $0.contains(#""op":"event""#) }
        #expect(events.count == 2 && events[0].contains(#""n":1"#) && events[1].contains(#""n":4"#), "\(events)")
        #expect(!recorded.contains { $0.contains(#""name":"cart""#) }, "the recording paused while opted out")
    }
}
