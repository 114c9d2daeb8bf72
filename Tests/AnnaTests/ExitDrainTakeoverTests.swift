import CoreJS
import Dispatch
import Foundation
import Testing

@testable import Anna

/// The drain at exit taking over blocks the delegate queue never started, in process: the
/// delegate queue is suspended, so every block handed to it waits.
@Suite("The drain at exit takes over waiting deliveries in order, within its deadline", .timeLimit(.minutes(5)))
struct ExitDrainTakeoverTests {
    /// A sink that keeps what it is given and counts its drains.
    final class KeepingSink: ResultSink, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [Double] = []
        private var drainCount = 0

        func append(_ result: AnalyticsResult, time: Double) throws {
            lock.withLock { kept.append(result.value.numberValue ?? -1) }
        }

        func drain(before deadline: ContinuousClock.Instant) -> Int {
            lock.withLock { drainCount += 1 }
            return 0
        }

        var values: [Double] { lock.withLock { kept } }
        var drains: Int { lock.withLock { drainCount } }
    }

    final class Receiver: ManagerDelegate, @unchecked Sendable {
        func manager(_ manager: Manager, didSend result: AnalyticsResult) {}
        func manager(_ manager: Manager, didCatch error: any Error) {}
    }

    static let blocks = 60

    /// A manager over `sink` whose delegate queue is suspended, with `blocks` blocks of one
    /// result each (0, 1, …) handed to it; `body` runs, then the queue resumes.
    func withWaitingBlocks(sink: KeepingSink, delegate: Receiver? = nil, _ body: (Manager) -> Void) {
        var dependency = Manager.Dependency()
        dependency.outbox = sink
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/nonexistent"), dependency: dependency)
        manager.delegate = delegate
        let queue = DispatchQueue(label: "suspended delegate queue")
        queue.suspend()
        manager.delegateQueue = queue
        for n in 0..<Self.blocks {
            manager.delivery.deliver([.output(.results(PendingResults(text: Array("[0,-1,\(n)]".utf8), metas: []), last: 0))])
        }
        body(manager)
        queue.resume()
    }

    @Test("the sink gets the waiting results in the order they were sent; with no delegate, nothing is missed")
    func inOrderWithoutDelegate() {
        let sink = KeepingSink()
        withWaitingBlocks(sink: sink) { manager in
            let lost = manager.delivery.drainAtExit(before: .now + .milliseconds(200))
            #expect(lost.results == 0)
            #expect(lost.undelivered == 0)
        }
        #expect(sink.values == (0..<Self.blocks).map(Double.init))
    }

    @Test("with a delegate, the results it never saw are counted")
    func countedWithDelegate() {
        let sink = KeepingSink()
        let delegate = Receiver()
        withWaitingBlocks(sink: sink, delegate: delegate) { manager in
            let lost = manager.delivery.drainAtExit(before: .now + .milliseconds(200))
            #expect(lost.results == 0)
            #expect(lost.undelivered == Self.blocks)
        }
        #expect(sink.values.count == Self.blocks)
    }

    @Test("past the deadline, the waiting results are counted as not stored, not appended")
    func boundedByTheDeadline() {
        let sink = KeepingSink()
        withWaitingBlocks(sink: sink) { manager in
            let lost = manager.delivery.drainAtExit(before: .now - .milliseconds(1))
            #expect(lost.results == Self.blocks)
            #expect(lost.undelivered == 0)
        }
        #expect(sink.values.isEmpty)
    }

    @Test("a sink shared by several managers is drained once")
    func sharedSinkDrainedOnce() {
        let sink = KeepingSink()
        var dependency = Manager.Dependency()
        dependency.outbox = sink
        let managers = (0..<3).map { _ in Manager(moduleURL: URL(fileURLWithPath: "/nonexistent"), dependency: dependency) }
        let loss = ExitDrain.drain(managers, before: .now + .seconds(10))
        #expect(loss == ExitLoss())
        #expect(sink.drains == 1)
    }
}
