import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@testable import Anna

@Suite("A paused manager holds a bounded number of operations and says when it drops", .timeLimit(.minutes(5)))
struct PausedManagerBoundTests {
    @Test("past the cap, operations are dropped: said once at once, reported with the count on resume; the held ones run")
    func pausedCap() async throws {
        let log = CapturedLog()
        var dependency = Manager.Dependency(
            fileAccess: moduleFiles(tasks: "match('/tap', (node) => node.latestEvent().attributes.n)"), standardOutput: MemoryOutputSink())
        dependency.logger = log.logger
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/m"), dependency: dependency)
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        manager.send(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil))
        await manager.flush()
        manager.pause()
        let limit = WorkQueue.pausedLimit
        let dropped = 7
        for n in 0..<(limit + dropped) {
            manager.sendEvent(id: NodeID(1), name: "tap", properties: .attributes(["n": .number(Double(n))]), time: 0)
        }
        #expect(manager.queuedOperationCount == limit)
        #expect(
            log.messages(at: .warning) == [
                "the manager is paused and holds \(limit) operations, its most: operations sent until resume() are dropped (counted, and reported on resume)"
            ])
        manager.resume()
        await manager.flush()
        #expect(delegate.values.count == limit)
        #expect(delegate.values.last == .number(Double(limit - 1)))
        #expect(delegate.errors.compactMap { $0 as? AnalyticsError } == [.pausedOverflow(kept: limit, dropped: dropped)])
        #expect(
            delegate.errorDescriptions == [
                "while the manager was paused, 7 operations were dropped: a paused manager holds at most 100000 operations; resume it sooner"
            ])
        #expect(log.messages(at: .warning).count == 1, "said once per pause")
    }
}
