import Anna
import CoreJS
import Dispatch
import Foundation

/// A page and a JSON API that show a running engine: its focus-path tree, tasks, results,
/// errors and figures, with switches (pause, task files on and off, reload, debug mode).
///
/// For an app's ``Manager``, make the manager with the inspector, then serve it:
///
/// ```swift
/// let inspector = Inspector()
/// var dependency = Manager.Dependency()
/// dependency.inspector = inspector
/// let manager = Manager(moduleURL: moduleURL, dependency: dependency)
/// let server = try await manager.startInspector(port: 0)   // or inspector.start()
/// print(server.url)                                          // http://127.0.0.1:PORT/
/// ```
///
/// A manager without an inspector pays nothing for it; with one, each operation costs a lock
/// and a copy into a ring of the last 256, and a sample of the record→delegate latency is
/// taken at most every 100 ms.
public final class Inspector: ManagerInspector, Sendable {
    /// How it keeps and serves.
    public let configuration: InspectorConfiguration
    let state: InspectorState
    private let subjectBox = Locked<(any InspectedSubject)?>(nil)
    private let probe = Locked(LatencyProbe())

    /// An inspector for the manager that will be made with it (``Manager/Dependency/inspector``).
    public init(configuration: InspectorConfiguration = InspectorConfiguration()) {
        self.configuration = configuration
        state = InspectorState(resultLimit: configuration.resultLimit, errorLimit: configuration.errorLimit)
    }

    /// An inspector of `subject` (a stream being replayed); its results, errors and
    /// operations are handed to ``record(result:line:)`` and the like by the subject.
    convenience init(subject: any InspectedSubject, configuration: InspectorConfiguration) {
        self.init(configuration: configuration)
        subjectBox.withLock { $0 = subject }
    }

    /// What is inspected, once a manager was made with the inspector.
    var subject: (any InspectedSubject)? { subjectBox.withLock { $0 } }

    func setSubject(_ subject: any InspectedSubject) {
        subjectBox.withLock { $0 = subject }
    }

    // MARK: - ManagerInspector

    /// Starts watching `manager`'s results and errors.
    public func attach(to manager: Manager) {
        setSubject(ManagerSubject(manager))
        let results = manager.results()
        let errors = manager.errors()
        let state = state
        Task.detached {
            for await result in results { state.add(result) }
        }
        Task.detached {
            for await error in errors { state.add(error: error) }
        }
    }

    /// Counts the operation, keeps it for the page, and now and then measures how long it
    /// takes to reach the delegate queue.
    public func manager(_ manager: Manager, didQueue operation: ModuleOperation, time: Double) {
        state.note(operation, time: time)
        guard case .event = operation else { return }
        let start = DispatchTime.now().uptimeNanoseconds
        guard probe.withLock({ $0.begin(at: start) }) else { return }
        // Everything queued before (this event included) is handled and delivered when this runs.
        manager.flush { [self] in
            state.addLatency(milliseconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            probe.withLock { $0.end() }
        }
    }

    // MARK: - Feeding by a stream session

    func record(result: AnalyticsResult, line: Int?) { state.add(result, line: line) }
    func record(error: any Error, line: Int?) { state.add(error: error, line: line) }
    func record(operation: ModuleOperation, time: Double, line: Int?) { state.note(operation, time: time, line: line) }

    // MARK: - Serving

    /// Starts serving on ``configuration``'s address; returns once it listens.
    /// - Throws: ``InspectorError/tokenRequired(host:)`` beyond loopback without a token, or
    ///   what binding the address threw.
    public func start() async throws -> InspectorServer {
        try await InspectorServer.start(for: self)
    }
}

/// One latency sample at a time, at most every 100 ms.
struct LatencyProbe: Sendable {
    static let intervalNanoseconds: UInt64 = 100_000_000
    private var outstanding = false
    private var lastStart: UInt64 = 0

    /// Whether to take a sample now (and, if so, one is under way).
    mutating func begin(at now: UInt64) -> Bool {
        guard !outstanding, now &- lastStart >= Self.intervalNanoseconds || lastStart == 0 else { return false }
        outstanding = true
        lastStart = now
        return true
    }

    mutating func end() { outstanding = false }
}

extension Manager {
    /// Serves the manager's ``Inspector`` (set as ``Manager/Dependency/inspector`` when it
    /// was made) on `host`:`port`; returns once it listens (``InspectorServer/url``).
    /// - Throws: ``InspectorError/managerWithoutInspector`` when the manager has none.
    public func startInspector(port: Int = 0, host: String = "127.0.0.1", token: String? = nil) async throws -> InspectorServer {
        guard let inspector = dependency.inspector as? Inspector else { throw InspectorError.managerWithoutInspector }
        return try await InspectorServer.start(for: inspector, host: host, port: port, token: token)
    }
}
