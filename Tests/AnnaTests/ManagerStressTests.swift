import Anna
import AnnaTestSupport
import CoreJS
import Dispatch
import Foundation
import Testing

/// One manager used from many threads at once; `make tsan` runs it under ThreadSanitizer.
@Suite("One manager hammered from 16 threads", .timeLimit(.minutes(5)))
struct ManagerStressTests {
    static let threads = 16
    static let rounds = 40

    /// A tick's ID: unique over the whole run, never 0 (a row tap's result is its negation).
    static func id(thread: Int, round: Int) -> Int { thread * 1_000 + round + 1 }

    @Test("record, register, deregister, flush and snapshot from 16 threads: every result once, in order, no error lost")
    func sixteenThreads() async throws {
        let manager = Manager(
            moduleURL: URL(fileURLWithPath: "/m"),
            dependency: .init(
                fileAccess: moduleFiles(
                    tasks: """
                        match('tick', (node) => node.latestEvent().attributes.id);
                        match('row/tap', (node) => -node.latestEvent().attributes.id);
                        match('boom', (node) => { throw new Error('boom#' + node.latestEvent().attributes.id + '#') });
                        """),
                standardOutput: MemoryOutputSink()))
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        let streamed = manager.results()
        let app = HostApplication(manager: manager)
        let shared = app.screen(named: "shared")
        let notes = Notes()

        let group = DispatchGroup()
        for thread in 0..<Self.threads {
            group.enter()
            Thread {
                defer { group.leave() }
                Self.hammer(manager, from: thread, under: app, shared: shared, delegate: delegate, notes: notes)
            }.start()
        }
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
        for flush in notes.state.withLock({ $0.flushes }) { await flush.value }
        await manager.flush()

        let ids = (0..<Self.threads).flatMap { thread in (0..<Self.rounds).map { Self.id(thread: thread, round: $0) } }
        let values = delegate.values.compactMap { $0.numberValue.map(Int.init) }
        #expect(values.count == ids.count * 2, "a tick and a row tap per round")
        #expect(values.filter { $0 >= 0 }.sorted() == ids, "every tick once")
        #expect(values.filter { $0 < 0 }.map { -$0 }.sorted() == ids, "every row tap once")
        for thread in 0..<Self.threads {
            let own = values.filter { $0 >= 0 && $0 / 1_000 == thread }
            #expect(own == own.sorted(), "thread \(thread)'s ticks in the order recorded")
        }
        var iterator = streamed.makeAsyncIterator()
        var fromStream: [AnalyticsResult] = []
        while fromStream.count < values.count, let result = await iterator.next() { fromStream.append(result) }
        #expect(fromStream == delegate.results, "the stream sees what the delegate sees")

        let booms = ids.filter { $0 % 4 == 0 }
        let descriptions = delegate.errorDescriptions
        #expect(descriptions.count == booms.count, "\(descriptions.prefix(3))")
        for boom in booms {
            #expect(descriptions.filter { $0.contains("boom#\(boom)#") }.count == 1, "error of boom \(boom) once")
        }
        let outcome = notes.state.withLock { $0 }
        #expect(outcome.lateFlushes.isEmpty, "flush() returned before these ticks were delivered: \(outcome.lateFlushes)")
        #expect(outcome.snapshots == Self.threads * Self.rounds / 8)
        #expect(outcome.snapshotFailures.isEmpty, "\(outcome.snapshotFailures)")

        // Every node a thread registered was deregistered: only the shared one is left, empty.
        let tree = try JSONValue(parsing: try await manager.snapshot(format: .json))
        let children = tree["root"]?["children"]?.arrayValue ?? []
        #expect(children.map { $0["name"] } == ["shared"])
        #expect(children.first?["children"]?.arrayValue?.isEmpty ?? true)
    }

    /// What the threads note besides results: flushes to wait for and what they found,
    /// snapshots taken.
    final class Notes: Sendable {
        struct State {
            var flushes: [Task<Void, Never>] = []
            /// Ticks a flush found missing although they were recorded before it was called.
            var lateFlushes: [Int] = []
            var snapshots = 0
            var snapshotFailures: [String] = []
        }
        let state = Locked(State())
    }

    /// One thread's rounds: a node registers, records a tick (every fourth round, also a task
    /// failure) and goes (detached, or released); a row under a shared node comes and goes;
    /// every few rounds, a flush that checks the tick before it arrived, or a snapshot.
    static func hammer(
        _ manager: Manager, from thread: Int, under app: HostApplication, shared: Analyzer, delegate: RecordingDelegate, notes: Notes
    ) {
        for round in 0..<rounds {
            let id = id(thread: thread, round: round)
            let link = ChainLink(next: app)
            let node = Analyzer(owner: link)
            node.enable(naming: "t\(thread)")
            node.record("tick", with: ["id": .number(Double(id))])
            if id % 4 == 0 { node.record("boom", with: ["id": .number(Double(id))]) }
            if round.isMultiple(of: 2) { node.detach() }  // else its deinit deregisters it
            withExtendedLifetime(link) {}

            let row = shared.keyedSubAnalyzer(for: "row", index: id)
            row.record("tap", with: ["id": .number(Double(id))])
            shared.removeKeyedSubAnalyzer(for: "row", index: id)

            switch round % 8 {
            case 3:
                let flush = Task {
                    await manager.flush()
                    if !delegate.values.contains(.number(Double(id))) { notes.state.withLock { $0.lateFlushes.append(id) } }
                }
                notes.state.withLock { $0.flushes.append(flush) }
            case 6:
                manager.snapshot(
                    format: .json,
                    onScriptQueue: { result in
                        notes.state.withLock { state in
                            state.snapshots += 1
                            if case let .failure(error) = result { state.snapshotFailures.append("\(error)") }
                        }
                    })
            default: break
            }
        }
    }
}
