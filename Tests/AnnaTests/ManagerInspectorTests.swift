import Anna
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// A ``ManagerInspector`` that keeps every call, and how many results the delegate held when
/// each block arrived.
private final class RecordingInspector: ManagerInspector, @unchecked Sendable {
    struct Seen {
        var blocks: [DeliveredBlock] = []
        var delegateCountAtBlock: [Int] = []
        var queuedEvents: [String] = []
        var queuedOperations = 0
        var attached = false
    }

    let resultsKeptPerBlock: Int
    let delegate: RecordingDelegate
    let seen = Locked(Seen())

    init(keeping: Int, delegate: RecordingDelegate) {
        resultsKeptPerBlock = keeping
        self.delegate = delegate
    }

    func attach(to manager: Manager) { seen.withLock { $0.attached = true } }
    func manager(_ manager: Manager, didQueue operation: ModuleOperation, time: Double) { seen.withLock { $0.queuedOperations += 1 } }
    func manager(_ manager: Manager, didQueueEvent name: String, on node: NodeID, time: Double) {
        seen.withLock { $0.queuedEvents.append(name) }
    }
    func manager(_ manager: Manager, didDeliver block: DeliveredBlock) {
        let delegateCount = delegate.results.count + delegate.errors.count
        seen.withLock {
            $0.blocks.append(block)
            $0.delegateCountAtBlock.append(delegateCount)
        }
    }
}

@Suite("A manager's inspector hooks: events as queued, results and errors by delivered block", .timeLimit(.minutes(5)))
struct ManagerInspectorTests {
    let output = MemoryOutputSink()

    private func rig(keeping: Int) -> (Manager, RecordingDelegate, RecordingInspector, HostApplication) {
        let delegate = RecordingDelegate()
        let inspector = RecordingInspector(keeping: keeping, delegate: delegate)
        var dependency = Manager.Dependency(
            fileAccess: moduleFiles(
                tasks: "match('tap', (node) => { const n = node.latestEvent().attributes.n; if (n % 5 == 0) throw new Error('five ' + n); return n })"
            ),
            standardOutput: output)
        dependency.inspector = inspector
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/m"), dependency: dependency)
        manager.delegate = delegate
        return (manager, delegate, inspector, HostApplication(manager: manager))
    }

    /// Records taps 1...12 while the script queue is paused, so they are handled and delivered
    /// as one block; taps 5 and 10 throw.
    private func oneBlock(keeping: Int) async -> (RecordingDelegate, RecordingInspector.Seen) {
        let (manager, delegate, inspector, app) = rig(keeping: keeping)
        let screen = app.screen(named: "screen")
        await manager.flush()
        manager.pause()
        for n in 1...12 { screen.record("tap", with: ["n": .number(Double(n))]) }
        #expect(manager.eventCount == 12)  // counted as queued, while the queue is paused
        manager.resume()
        await manager.flush()
        return (delegate, inspector.seen.withLock { $0 })
    }

    @Test("a block hands over its last results, oldest first, counts the ones before, and its errors, after the delegate saw them")
    func lastResults() async throws {
        let (delegate, seen) = await oneBlock(keeping: 3)
        #expect(seen.attached)
        #expect(seen.queuedEvents == Array(repeating: "tap", count: 12))
        #expect(seen.queuedOperations == 2)  // the root's and the screen's registrations
        #expect(delegate.results.count == 10)
        #expect(delegate.errors.count == 2)
        let block = try #require(seen.blocks.last)
        #expect(block.results.map(\.value) == [9, 11, 12])
        #expect(block.skippedResults == 7)
        #expect(block.errors.map { "\($0)" }.filter { $0.contains("five") }.count == 2)
        #expect(seen.delegateCountAtBlock.last == 12)
    }

    @Test("a block of fewer results than kept hands them all over")
    func allResults() async throws {
        let (_, seen) = await oneBlock(keeping: 20)
        let block = try #require(seen.blocks.last)
        #expect(block.results.map(\.value) == [1, 2, 3, 4, 6, 7, 8, 9, 11, 12])
        #expect(block.skippedResults == 0)
    }

    @Test("an inspector that keeps no results still counts them")
    func keepsNone() async throws {
        let (_, seen) = await oneBlock(keeping: 0)
        let block = try #require(seen.blocks.last)
        #expect(block.results.isEmpty)
        #expect(block.skippedResults == 10)
        #expect(block.errors.count == 2)
    }
}
