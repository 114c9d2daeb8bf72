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
@Suite("A task author's mistakes are loud and located", .timeLimit(.minutes(5)))
struct AuthorLoopTests {
    let output = MemoryOutputSink()

    func manager(tasks: String, debug: Bool = false, log: CapturedLog, extra: [String: String] = [:]) -> Manager {
        var dependency = Manager.Dependency(debug: debug, fileAccess: moduleFiles(tasks: tasks, extra: extra), standardOutput: output)
        dependency.logger = log.logger
        dependency.waitingEventsReportDelay = .milliseconds(200)
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
        // Every debug manager hears of every waiting analyzer (one without a root has no
        // manager of its own), so other tests' analyzers may be reported here too.
        let reports = delegate.errors.compactMap { $0 as? AnalyticsError }
        #expect(reports.contains(.eventsWaiting(owner: "HostObject", chain: ["HostObject"], events: 2)))
        #expect(reports.allSatisfy { !$0.isFailure })
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
        )
        values += try engine.registerNode(id: NodeID(1), parent: nil, name: "root").map(\.value)
        values += try engine.recordEvent(name: "tap", nodeID: NodeID(1)).map(\.value)
        #expect(values == [["map": ["a": 1, "2": "b"], "set": ["x", "y"], "error": ["name": "TypeError", "message": "bad input"]]])
    }

    @Test("a failing task says where it is, in Swift and in its description")
    func failuresAreLocated() throws {
        var errors: [AnalyticsError] = []
        let engine = try moduleEngine(tasks: "\nmatch('tap', () => null.boom);\n")
        try engine.registerNode(id: NodeID(1), parent: nil, name: "root")
        try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "home")
        engine.apply([TimedOperation(.event(id: NodeID(2), name: "tap", properties: [:]))]).forEach(result: { _ in }, error: { errors.append($1) })
        guard case let .tasksFailed(failures)? = errors.first else {
            Issue.record("expected a task failure, got \(errors)")
            return
        }
        #expect(failures.first?.location?.file == "/m/task/index.js")
        #expect(failures.first?.location?.line == 2)
        #expect(failures.first?.errorLocation?.hasPrefix("/m/task/index.js:2:") == true)
        #expect(
            failures.map(\.description) == [
                "task 'tap' (/m/task/index.js:2:6) on '/home' (tap): null is not an object (evaluating 'null.boom') (thrown at /m/task/index.js:2:24)"
            ])
    }

    @Test("a task stopped by the time limit is named with its file and line")
    func timeLimitNamesTheTask() throws {
        var errors: [AnalyticsError] = []
        let engine = try moduleEngine(tasks: "match('tap', () => 1);\nmatch('tap', () => { for (;;) {} });\n", limit: 0.2)
        try engine.registerNode(id: NodeID(1), parent: nil, name: "root")
        try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "home")
        engine.apply([TimedOperation(.event(id: NodeID(2), name: "tap", properties: [:]))]).forEach(result: { _ in }, error: { errors.append($1) })
        #expect(
            errors.map(String.init(describing:)) == [
                "recording 'tap' on node 2 failed: execution time limit exceeded: task 'tap' (/m/task/index.js:2:6) on '/home' (tap) ran longer than 0.2 s and was stopped"
            ])
    }

    @Test("a function in a result is dropped with one warning per task; a node crosses as its public face")
    func unsendableValues() throws {
        var values: [JSONValue] = []
        var errors: [AnalyticsError] = []
        let engine = try moduleEngine(tasks: "match('tap', () => ({ a: 1, onTap() {} }));\nmatch('tap', (node) => node);\n")
        values += try engine.registerNode(id: NodeID(1), parent: nil, name: "root").map(\.value)
        values += try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "cell", index: 3).map(\.value)
        let taps = (0..<2).map { _ in TimedOperation(.event(id: NodeID(2), name: "tap", properties: [:])) }
        engine.apply(taps).forEach(result: { values.append($0.value) }, error: { errors.append($1) })
        let cell: JSONValue = ["name": "cell", "index": 3, "path": "/cell"]
        #expect(values == [["a": 1], cell, ["a": 1], cell])
        #expect(errors.count == 1, "once per task: \(errors)")
        guard case let .resultWarning(warning)? = errors.first else { return }
        #expect(warning.location?.file == "/m/task/index.js", "\(warning)")
        #expect(warning.location?.line == 1, "\(warning)")
        #expect(
            warning.message == "Task 'tap' (task/index.js:1:6) returned a function at .onTap: functions and symbols cannot be sent; it was dropped.")
        #expect(errors.first?.isFailure == false)
    }

    @Test("coverage shows a pattern that never fired, a namespace without a task file and a file never loaded")
    func coverageShowsSilentMistakes() async throws {
        let folder = try TemporaryFolder([
            "m/index.js": moduleIndex,
            "m/task/index.js": "match('tap', () => 'tapped');\nmatch('tpa', () => 'typo');\n",
            "m/task/Settings.js": "match('save', () => 'saved');\n",
        ])
        let log = CapturedLog()
        var dependency = Manager.Dependency(standardOutput: output)
        dependency.logger = log.logger
        let manager = Manager(moduleURL: folder.url.appendingPathComponent("m"), dependency: dependency)
        let app = HostApplication(manager: manager)
        app.screen(named: "home").record("tap")  // its namespace, ChainLink, has no task file
        let coverage = try await manager.coverage()
        withExtendedLifetime(app) {}
        #expect(coverage.tasks.map(\.task) == ["tap", "tpa"])
        #expect(coverage.tasks.map(\.matches) == [1, 0])
        #expect(coverage.tasksNeverFired.map(\.task) == ["tpa"])
        #expect(coverage.namespacesWithoutTaskFile.map(\.namespace) == ["ChainLink"])
        #expect(coverage.files.first { $0.file.hasSuffix("/task/Settings.js") }?.status == .neverLoaded)
        let report = coverage.report()
        #expect(
            report == """
                index.js: loaded
                  1:\ttap\t1 match
                  2:\ttpa\t0 matches  never fired
                ChainLink.js: missing (a namespace asked for it)
                Settings.js: never loaded (no node's namespace asked for it)
                namespaces without a task file: ChainLink (ChainLink.js)
                2 tasks (1 never fired), 2 task files (1 never loaded), 1 namespace without a task file
                """)
    }

    @Test("with watchTasks, a changed task file runs its new code from the next event on")
    func watchedTaskFilesReload() throws {
        let folder = try TemporaryFolder(["m/index.js": moduleIndex, "m/task/index.js": "match('tap', () => 'v1');\n"])
        var values: [JSONValue] = []
        var configuration = AnalyticsEngine.Configuration(
            moduleURL: folder.url.appendingPathComponent("m"), console: Console(output: MemoryOutputSink()))
        configuration.watchTasks = true
        let engine = try AnalyticsEngine(configuration: configuration)
        values += try engine.registerNode(id: NodeID(1), parent: nil, name: "root").map(\.value)
        values += try engine.recordEvent(name: "tap", nodeID: NodeID(1)).map(\.value)
        try folder.write("m/task/index.js", "match('tap', () => 'v2');\n")
        Thread.sleep(forTimeInterval: 0.3)
        values += try engine.recordEvent(name: "tap", nodeID: NodeID(1)).map(\.value)
        #expect(values == ["v1", "v2"])
    }
}
