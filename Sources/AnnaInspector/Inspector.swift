import Anna
import CoreJS
import DequeModule
import Dispatch
import Foundation
import Synchronization

/// A page and a JSON API that show a running engine: its focus-path tree, tasks, results,
/// errors and figures, with switches (pause, task files on and off, reload, debug mode).
///
/// For an app's ``/Anna/Manager``, make the manager with the inspector, then serve it:
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
/// A manager without an inspector pays nothing for it. With one, an event costs two atomic
/// reads (and, for the first 16 in each 10 ms, a copy into the ring of the last 256 for the
/// page); a delivered block of results is kept with one append, its results moved
/// in after the delegate saw them; a sample of the record→delegate latency is taken at most
/// every 100 ms.
public final class Inspector: ManagerInspector, Sendable {
    /// How it keeps and serves.
    public let configuration: InspectorConfiguration
    let state: InspectorState
    private let subjectBox = Locked<(any InspectedSubject)?>(nil)
    /// The millisecond the last latency sample started at, or -1 while one is under way.
    private let probeStart = Atomic<Int>(0)

    /// An inspector for the manager that will be made with it (``/Anna/Manager/Dependency/inspector``).
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

    /// Starts inspecting `manager`.
    public func attach(to manager: Manager) {
        setSubject(ManagerSubject(manager))
    }

    /// Keeps the registration or removal for the page (its node, its namespace).
    public func manager(_ manager: Manager, didQueue operation: ModuleOperation, time: Double) {
        state.note(operation, time: time)
    }

    /// Samples the event for the page (the manager counts it), and at most every 100 ms
    /// measures how long it takes to reach the delegate queue.
    public func manager(_ manager: Manager, didQueueEvent name: String, on node: NodeID, time: Double) {
        state.sampleQueuedEvent(node: node, name: name, time: time)
        let millisecond = Int(time)
        let last = probeStart.load(ordering: .relaxed)
        guard last >= 0, millisecond - last >= LatencyProbe.intervalMilliseconds,
            probeStart.compareExchange(expected: last, desired: -1, ordering: .relaxed).exchanged
        else { return }
        let start = DispatchTime.now().uptimeNanoseconds
        // Everything queued before (this event included) is handled and delivered when this runs.
        manager.flush(thenOnDelegateQueue: { [self] in
            state.addLatency(milliseconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            probeStart.store(millisecond, ordering: .relaxed)
        })
    }

    /// The page shows the last ``InspectorConfiguration/resultLimit`` results.
    public var resultsKeptPerBlock: Int { state.resultLimit }

    /// Keeps the block's results and errors (on the delegate queue), under one lock.
    public func manager(_ manager: Manager, didDeliver block: DeliveredBlock) {
        state.add(block, time: InspectorClock.now(), eventTotal: manager.eventCount)
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

/// How often the record→delegate latency is sampled.
enum LatencyProbe {
    static let intervalMilliseconds = 100
}

extension Manager {
    /// Serves the manager's ``Inspector`` (set as ``/Anna/Manager/Dependency/inspector`` when it
    /// was made) on `host`:`port`; returns once it listens (``InspectorServer/url``).
    /// - Throws: ``InspectorError/managerWithoutInspector`` when the manager has none.
    public func startInspector(port: Int = 0, host: String = "127.0.0.1", token: String? = nil) async throws -> InspectorServer {
        guard let inspector = dependency.inspector as? Inspector else { throw InspectorError.managerWithoutInspector }
        return try await InspectorServer.start(for: inspector, host: host, port: port, token: token)
    }
}
