import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@testable import Anna

@Suite("A runaway promise job names its task and the operation that queued it; every one is reported", .timeLimit(.minutes(5)))
struct PromiseJobBlameTests {
    /// Root, `spin`, `ok`, `ok`, `spin`, `ok` in one batch: the offsets and texts of the errors.
    func run(tasks: String) throws -> [(offset: Int, error: String)] {
        var runtime = RuntimeConfiguration(executionTimeLimit: .milliseconds(300), fileAccess: moduleFiles(tasks: tasks))
        runtime.console = Console(output: MemoryOutputSink())
        let engine = try AnalyticsEngine(configuration: .init(moduleURL: URL(fileURLWithPath: "/m"), runtime: runtime))
        let event = { (name: String) in TimedOperation(.event(id: NodeID(1), name: name, properties: [:])) }
        var errors: [(Int, String)] = []
        engine.apply(
            [
                TimedOperation(.register(id: NodeID(1), parent: nil, name: "root", index: nil, namespace: nil, attributes: nil)),
                event("spin"), event("ok"), event("ok"), event("spin"), event("ok"),
            ]
        ).forEach(result: { _ in }, error: { offset, error in errors.append((offset, "\(error)")) })
        return errors
    }

    /// Root, `spin`, `spin`, `ok`, `stop`, `ok` in one batch, where `stop` runs away in its
    /// own code: the offsets and texts of the errors, and how many results came.
    func runStoppingLater(stop: String, memoryLimit: Int? = nil) throws -> (errors: [(offset: Int, error: String)], results: Int) {
        var runtime = RuntimeConfiguration(
            executionTimeLimit: .milliseconds(300),
            fileAccess: moduleFiles(
                tasks: """
                    match('ok', () => 'ok');
                    match('spin', async () => { await null; for (;;) {} });
                    match('stop', \(stop));
                    """))
        runtime.memoryLimit = memoryLimit
        runtime.console = Console(output: MemoryOutputSink())
        let engine = try AnalyticsEngine(configuration: .init(moduleURL: URL(fileURLWithPath: "/m"), runtime: runtime))
        let event = { (name: String) in TimedOperation(.event(id: NodeID(1), name: name, properties: [:])) }
        var errors: [(Int, String)] = []
        var results = 0
        engine.apply(
            [
                TimedOperation(.register(id: NodeID(1), parent: nil, name: "root", index: nil, namespace: nil, attributes: nil)),
                event("spin"), event("spin"), event("ok"), event("stop"), event("ok"),
            ]
        ).forEach(result: { _ in results += 1 }, error: { offset, error in errors.append((offset, "\(error)")) })
        return (errors, results)
    }

    // JavaScriptCore runs the promise jobs queued before a stopped call as that call ends.
    @Test(
        "a promise job queued before an operation the limit stops: its own stop is reported, and the job after it as dropped",
        arguments: [
            (stop: "() => { for (;;) {} }", memoryLimit: nil, says: "execution time limit exceeded: task 'stop'"),
            (stop: "() => { const kept = []; for (;;) kept.push(new Array(65536).fill(1)); }", memoryLimit: 64 << 20, says: "memory limit exceeded"),
        ] as [(stop: String, memoryLimit: Int?, says: String)])
    func jobQueuedBeforeAStoppedOperation(stop: String, memoryLimit: Int?, says: String) throws {
        let (errors, results) = try runStoppingLater(stop: stop, memoryLimit: memoryLimit)
        #expect(errors.map(\.offset) == [1, 2, 4], "\(errors)")
        // After a memory stop the heap is still over the limit as the job runs: it may be
        // stopped for that, named as the job it is.
        let jobStop = errors.first?.error ?? ""
        #expect(
            memoryLimit == nil
                ? jobStop == Self.stopped
                : jobStop.hasPrefix("the promise jobs after recording 'spin' on node 1 failed: ")
                    && jobStop.contains("a promise job (code after await, a then callback) of task 'spin' (/m/task/index.js:2:6)"),
            "\(errors)")
        #expect(
            errors.dropFirst().first?.error
                == "task 'spin' (/m/task/index.js:2:6) on the root (spin): its code after await never ran: "
                + "the time limit stopped a promise job queued before it, and the jobs queued after that one were dropped.")
        #expect(errors.last.map { $0.error.hasPrefix("recording 'stop' on node 1 failed: \(says)") } == true, "\(errors)")
        #expect(results == 2, "the two 'ok' events")
    }

    static let stopped =
        "the promise jobs after recording 'spin' on node 1 failed: execution time limit exceeded: a promise job (code after await, a then callback) "
        + "of task 'spin' (/m/task/index.js:2:6) on the root (spin) ran longer than 0.3 s and was stopped"

    @Test("a then callback of a task that never ends: blamed on its event, with its task; the one queued later is reported as dropped")
    func thenCallback() throws {
        let errors = try run(
            tasks: """
                match('ok', () => 'ok');
                match('spin', () => { Promise.resolve().then(() => { for (;;) {} }); return 'queued'; });
                """)
        #expect(errors.map(\.offset) == [1, 4])
        #expect(
            errors.map(\.error) == [
                Self.stopped,
                "task 'spin' (/m/task/index.js:2:6) on the root (spin): its promise job (a then callback) did not run: "
                    + "the time limit stopped a promise job queued before it, and the jobs queued after that one were dropped.",
            ])
    }

    @Test("code after await that never ends: blamed on its event; the task queued later is reported on its own event")
    func afterAwait() throws {
        let errors = try run(
            tasks: """
                match('ok', () => 'ok');
                match('spin', async () => { await null; for (;;) {} });
                """)
        #expect(errors.map(\.offset) == [1, 4])
        #expect(
            errors.map(\.error) == [
                Self.stopped,
                "task 'spin' (/m/task/index.js:2:6) on the root (spin): its code after await never ran: "
                    + "the time limit stopped a promise job queued before it, and the jobs queued after that one were dropped.",
            ])
    }

    @Test("then callbacks that end are not reported, and a core's own then on an async task's promise is not tracked")
    func quietOtherwise() throws {
        let errors = try run(
            tasks: """
                match('ok', async () => { await null; return 'ok'; });
                match('spin', () => { Promise.resolve(1).then((n) => n + 1); return 'queued'; });
                """)
        #expect(errors.isEmpty)
    }

    @Test("a catch on a fulfilled promise and a then on a rejected one leave nothing tracked: a later stop reports only itself")
    func settledTheOtherWay() throws {
        var runtime = RuntimeConfiguration(
            executionTimeLimit: .milliseconds(300),
            fileAccess: moduleFiles(
                tasks: """
                    match('settle', () => { Promise.resolve(1).catch(() => 0); Promise.reject(1).then(() => 0).catch(() => 0); return 'ok'; });
                    match('spin', () => { Promise.resolve().then(() => { for (;;) {} }); return 'queued'; });
                    match('spinLater', () => { Promise.resolve().then(() => Promise.resolve().then(() => { for (;;) {} })); return 'queued'; });
                    """))
        runtime.console = Console(output: MemoryOutputSink())
        let engine = try AnalyticsEngine(configuration: .init(moduleURL: URL(fileURLWithPath: "/m"), runtime: runtime))
        let event = { (name: String) in TimedOperation(.event(id: NodeID(1), name: name, properties: [:])) }
        var errors: [[Int]] = []
        func apply(_ operations: [TimedOperation]) {
            var offsets: [Int] = []
            engine.apply(operations).forEach { _ in
            } error: { offset, error in
                offsets.append(offset)
                #expect("\(error)".contains("ran longer than 0.3 s and was stopped"))
            }
            errors.append(offsets)
        }
        let root = TimedOperation(.register(id: NodeID(1), parent: nil, name: "root", index: nil, namespace: nil, attributes: nil))
        apply([root, event("settle"), event("settle")])
        // A later batch, then one where every settled job ran before the stop: only the stops.
        apply([event("spin")])
        apply([event("settle"), event("settle"), event("spinLater")])
        #expect(errors == [[], [0], [2]])
    }
}
