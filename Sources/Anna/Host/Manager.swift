import CoreJS
import Dispatch
import Foundation
import Synchronization

/// The port between Swift and the JavaScript analytics module.
///
/// A manager loads the module at `moduleURL` (lazily, on first use) into its own
/// JavaScriptCore context, which it only ever touches from one private serial queue. Every
/// public method is safe to call from any thread and returns without waiting for JavaScript.
/// Results and errors reach ``delegate`` on ``delegateQueue``, and the async sequences from
/// ``results()`` and ``errors()``.
///
/// When the process ends normally (a return from `main`, `exit()`) without ``flush()``, an
/// `atexit` handler gives the live managers at most 2 s together to handle what was sent,
/// write it to the recording and store its results in the ``Dependency/outbox``; what it
/// could not save is counted in one line on standard error.
///
/// ```swift
/// let manager = Manager(moduleURL: URL(fileURLWithPath: "analytics"))
/// manager.delegate = self
/// let root = RootAnalyzer(manager: manager)
/// ```
public final class Manager: Sendable {
    /// The analytics module (a folder with `index.js`, or the file).
    public let moduleURL: URL
    /// How the manager was configured.
    public let dependency: Dependency

    let delivery: ResultDelivery
    /// ``Dependency/inspector``, kept apart: read on every operation.
    private let inspector: (any ManagerInspector)?
    let script: ScriptQueue
    /// Whether the user opted out (``optOut()``); read on every event.
    let optedOut = Atomic<Bool>(false)

    /// Creates a manager; nothing is loaded until the first operation.
    public init(moduleURL: URL, dependency: Dependency = Dependency()) {
        self.moduleURL = moduleURL
        self.dependency = dependency
        inspector = dependency.inspector
        delivery = ResultDelivery(
            logger: dependency.logger, outbox: dependency.outbox, inspector: dependency.inspector, redaction: dependency.redaction)
        defer {
            delivery.attach(to: self)
            if dependency.debug { DebugManagers.add(self) }
            ExitDrain.add(self)
            inspector?.attach(to: self)
        }
        script = ScriptQueue(
            configuration: .init(moduleURL: moduleURL, runtime: dependency.runtime),
            recordingURL: dependency.recordingURL, redaction: dependency.redaction, delivery: delivery, logger: dependency.logger)
    }

    /// Receives results and errors. Held weakly, as delegates are: keep a strong reference
    /// to it (a delegate released while results arrive is reported once to the logger).
    public var delegate: (any ManagerDelegate)? {
        get { delivery.delegate }
        set { delivery.delegate = newValue }
    }

    /// The queue delegate methods are called on: by default a private serial queue (Linux
    /// programs often run no main loop). Set it to `.main` in a UI app.
    public var delegateQueue: DispatchQueue {
        get { delivery.delegateQueue }
        set { delivery.delegateQueue = newValue }
    }

    /// A new sequence of every result sent from now on, in order.
    public func results() -> AsyncStream<AnalyticsResult> {
        delivery.results()
    }

    /// A new sequence of every error caught from now on.
    public func errors() -> AsyncStream<any Error> {
        delivery.errors()
    }

    /// Has the module log its snapshot (markup) to `dependency.standardOutput`, after the
    /// operations sent before.
    public func logSnapshot() {
        enqueue(.logSnapshot)
    }

    /// The snapshot of the tree once the operations sent before have been handled.
    public func snapshot(format: SnapshotFormat = .markup) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            snapshot(format: format, onScriptQueue: { continuation.resume(with: $0) })
        }
    }

    /// The coverage (which tasks ran how often, which task files loaded, which namespaces
    /// had none) once the operations sent before have been handled.
    /// - Throws: the module's load error, or ``AnalyticsError/operationFailed(operation:_:)``
    ///   when its core has no `coverage()`.
    public func coverage() async throws -> Coverage {
        try await withCheckedThrowingContinuation { continuation in
            run({ engine in continuation.resume(returning: try engine.coverage()) }, onFailure: { continuation.resume(throwing: $0) })
        }
    }

    /// The snapshot, passed to `completion` on the script queue.
    @available(*, deprecated, message: "use the async snapshot(format:)")
    public func snapshot(format: SnapshotFormat = .markup, completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        snapshot(format: format, onScriptQueue: completion)
    }

    /// The snapshot, passed to `completion` on the script queue (which runs nothing else
    /// meanwhile): for the package's tools and tests.
    package func snapshot(format: SnapshotFormat, onScriptQueue completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        run(
            { engine in completion(.success(try engine.snapshot(format: format))) },
            onFailure: { completion(.failure($0)) })
    }

    /// Waits until every operation sent before has been handled and its results handed to
    /// the delegate queue.
    public func flush() async {
        await withCheckedContinuation { continuation in
            enqueue(.barrier { continuation.resume() })
        }
    }

    // MARK: - Operations from analyzers

    /// Queues a module operation, stamped with `time` (ms since the epoch; default: now).
    /// It is encoded right away, on the calling thread. An event is dropped while the user
    /// opted out (``optOut()``).
    func send(_ operation: ModuleOperation, time: Double = Manager.now()) {
        if case .event = operation, optedOut.load(ordering: .relaxed) { return }
        script.enqueue(for: self) { $0.append(operation, time: time) }
        if let inspector { inspector.manager(self, didQueue: dependency.redaction?.redact(operation) ?? operation, time: time) }
    }

    /// Queues `recordEvent` (encoded right away, on the calling thread), unless the user opted out.
    func sendEvent(id: NodeID, name: String, properties: EventProperties, time: Double) {
        guard !optedOut.load(ordering: .relaxed) else { return }
        script.enqueue(for: self) { $0.appendEvent(id: id, name: name, properties: properties, time: time) }
        inspector?.manager(self, didQueueEvent: name, on: id, time: time)
    }

    /// The wall clock in whole milliseconds since the epoch (as `Date.now()` in JavaScript).
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)  // `Date()` costs about twice as much on the hot path
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec / 1_000_000)
    }

    func run(_ body: @escaping @Sendable (AnalyticsEngine) throws -> Void, onFailure: (@Sendable (any Error) -> Void)? = nil) {
        enqueue(.engineTask(body, onFailure: onFailure))
    }

    /// Reports `error` in order after the work sent before.
    func report(_ error: any Error) {
        enqueue(.report(error))
    }

    func enqueue(_ task: ScriptTask) {
        script.enqueue(for: self) { $0.append(task) }
    }
}
