import CoreJS
import Dispatch
import Foundation
import Testing

@testable import Anna

/// The drain at exit taking over blocks the delegate queue never started, in process: the
/// delegate queue is suspended, so every block handed to it waits.
@Suite("The drain at exit takes over waiting deliveries in order, within its deadline", .timeLimit(.minutes(5)))
struct ExitDrainTakeoverTests {
    /// A sink that keeps what it is given and counts the drains that could wait.
    final class KeepingSink: ResultSink, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [Double] = []
        private var waitCount = 0

        func append(_ result: AnalyticsResult, time: Double) throws {
            lock.withLock { kept.append(result.value.numberValue ?? -1) }
        }

        func drain(before deadline: ContinuousClock.Instant) -> Int {
            if deadline > .now { lock.withLock { waitCount += 1 } }
            return 0
        }

        var values: [Double] { lock.withLock { kept } }
        var waits: Int { lock.withLock { waitCount } }
    }

    final class Receiver: ManagerDelegate, @unchecked Sendable {
        func manager(_ manager: Manager, didSend result: AnalyticsResult) {}
        func manager(_ manager: Manager, didCatch error: any Error) {}
    }

    /// A delegate that holds its first result until `gate` is signalled, after saying so.
    final class HeldReceiver: ManagerDelegate, @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        private let first = Locked(true)

        func manager(_ manager: Manager, didSend result: AnalyticsResult) {
            let isFirst = first.withLock { isFirst in
                defer { isFirst = false }
                return isFirst
            }
            guard isFirst else { return }
            entered.signal()
            gate.wait()
        }

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
            manager.delivery.deliver([.output(.results(PendingResults(text: Array("[\(n)]".utf8), index: [0, -1], metas: []), last: 0))])
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
        #expect(sink.waits == 1)
    }

    /// A manager over `sink` and `delegate` whose delegate queue is delivering one block of
    /// five results (0…4), held inside the delegate's first; `body` runs, then it goes on.
    func withHeldBlock(sink: KeepingSink, delegate: HeldReceiver, _ body: (Manager) -> Void) {
        var dependency = Manager.Dependency()
        dependency.outbox = sink
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/nonexistent"), dependency: dependency)
        manager.delegate = delegate
        manager.delegateQueue = DispatchQueue(label: "held delegate queue")
        let text = "[" + (0..<5).map { "\($0)" }.joined(separator: ",") + "]"
        let index = [Double]((0..<5).flatMap { _ in [0.0, -1] })
        manager.delivery.deliver([.output(.results(PendingResults(text: Array(text.utf8), index: index, metas: []), last: 0))])
        delegate.entered.wait()
        body(manager)
        delegate.gate.signal()
    }

    @Test("a block another thread is delivering is waited for, and what it has not handed on is counted last")
    func aRunningBlockIsWaitedForAndCountedLast() async throws {
        let sink = KeepingSink()
        let delegate = HeldReceiver()
        withHeldBlock(sink: sink, delegate: delegate) { manager in
            let started = ContinuousClock.now
            // 100 ms for the deliveries, then the sinks' reserve.
            let loss = ExitDrain.drain([manager], before: .now + .milliseconds(100) + ExitDrain.sinkReserve)
            #expect(ContinuousClock.now - started >= .milliseconds(100))  // it waited for the block
            // The sink has the first result; the four behind the held delegate are not handed on.
            #expect(loss == ExitLoss(operations: 0, results: 4, undelivered: 4))
            #expect(sink.values == [0])
        }
        while sink.values.count < 5 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(sink.values == [0, 1, 2, 3, 4])
    }

    @Test("what a block hands on after the drain looked is not counted")
    func theRestIsReadWhenCounted() async throws {
        let sink = KeepingSink()
        let delegate = HeldReceiver()
        var inFlight: ExitInFlight?
        withHeldBlock(sink: sink, delegate: delegate) { manager in
            let drained = manager.delivery.drainAtExit(before: .now + .milliseconds(20))
            #expect(drained.results == 0 && drained.undelivered == 0)
            #expect(drained.inFlight.isRunningElsewhere)
            #expect(drained.inFlight.rest() == (results: 4, undelivered: 4))
            inFlight = drained.inFlight
        }
        let held = try #require(inFlight)
        while held.isRunningElsewhere { try await Task.sleep(for: .milliseconds(1)) }
        #expect(held.rest() == (results: 0, undelivered: 0))
        #expect(sink.values == [0, 1, 2, 3, 4])
    }
}
