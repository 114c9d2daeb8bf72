import Anna
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// A delegate that only wants results, as the first delegate many users write.
private final class ResultsOnly: ManagerDelegate, @unchecked Sendable {
    let lock = NSLock()
    var values: [JSONValue] = []
    func manager(_ manager: Manager, didSend result: AnalyticsResult) { lock.withLock { values.append(result.value) } }
}

/// The loop of a task author and a Swift integrator: every mistake reaches someone, with
/// where it is.
@Suite("A task author's mistakes are loud and located", .timeLimit(.minutes(1)))
struct AuthorLoopTests {
    let output = MemoryOutputSink()

    func manager(tasks: String, debug: Bool = false, log: CapturedLog, extra: [String: String] = [:]) -> Manager {
        var dependency = Manager.Dependency(debug: debug, fileAccess: moduleFiles(tasks: tasks, extra: extra), standardOutput: output)
        dependency.logger = log.logger
        dependency.waitingEventsReportSeconds = 0.2
        return Manager(moduleURL: URL(fileURLWithPath: "/m"), dependency: dependency)
    }

    @Test("a delegate without didCatch: a task file that does not parse is logged, not lost")
    func errorsWithoutDidCatchAreLogged() async throws {
        let log = CapturedLog()
        let manager = manager(tasks: "match('tap', (node) => {", log: log)
        let delegate = ResultsOnly()
        manager.delegate = delegate
        HostApplication(manager: manager).screen(named: "home").record("tap")
        await manager.flush()
        let logged = log.messages(at: .error)
        #expect(logged.count == 1)
        #expect(logged.first?.contains("/m/task/index.js") == true, "\(logged)")
    }

    @Test("no delegate and no error stream: errors are logged; a released delegate is reported once")
    func noListenerLogs() async throws {
        let log = CapturedLog()
        let manager = manager(tasks: "match('tap', () => { throw new Error('boom') })", log: log)
        manager.delegate = ResultsOnly()  // released at once: the manager holds it weakly
        let screen = HostApplication(manager: manager).screen(named: "home")
        screen.record("tap")
        screen.record("tap")
        await manager.flush()
        #expect(log.messages(at: .error).filter { $0.contains("boom") }.count == 2)
        let warnings = log.messages(at: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("holds its delegate weakly") == true)
    }

    @Test("in debug mode, events that wait for a parent are reported once with the chain walked")
    func waitingEventsAreReported() async throws {
        let log = CapturedLog()
        let manager = manager(tasks: "", debug: true, log: log)
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        let orphanParent = HostObject()
        let orphan = HostObject(parent: orphanParent)
        orphan.analyzer.enable(naming: "orphan")
        orphan.analyzer.record("tap", with: nil)
        orphan.analyzer.record("tap", with: nil)
        try await Task.sleep(for: .milliseconds(600))
        await manager.flush()
        let reports = delegate.errors.compactMap { $0 as? AnalyticsError }
        #expect(reports == [.eventsWaiting(owner: "HostObject", chain: ["HostObject"], events: 2)])
        #expect(reports.first?.isFailure == false)
        withExtendedLifetime((orphanParent, orphan)) {}
    }

    @Test("Map, Set and Error in a result arrive as an object, an array and name and message")
    func collectionsAndErrorsInResults() throws {
        var values: [JSONValue] = []
        let engine = try moduleEngine(
            tasks: """
                match('tap', () => ({
                  map: new Map([['a', 1], [2, 'b']]),
                  set: new Set(['x', 'y']),
                  error: new TypeError('bad input'),
                }));
                """
        ) { values.append($0.value) }
        try engine.registerNode(id: NodeID(1), parent: nil, name: "root")
        try engine.recordEvent(name: "tap", nodeID: NodeID(1))
        #expect(values == [["map": ["a": 1, "2": "b"], "set": ["x", "y"], "error": ["name": "TypeError", "message": "bad input"]]])
    }
}
