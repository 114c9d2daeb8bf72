import CoreJS
import DequeModule
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

    private let scriptQueue = DispatchQueue(label: "anna.manager.script")
    private let pending = Mutex(WorkQueue())
    private let observers = Mutex(Observers())
    private let script: ScriptState

    /// Creates a manager; nothing is loaded until the first operation.
    public init(moduleURL: URL, dependency: Dependency = Dependency()) {
        self.moduleURL = moduleURL
        self.dependency = dependency
        script = ScriptState()
    }

    /// Receives results and errors. Held weakly.
    public var delegate: (any ManagerDelegate)? {
        get { observers.withLock { $0.delegate.value } }
        set { observers.withLock { $0.delegate = WeakDelegate(value: newValue) } }
    }

    /// The queue delegate methods are called on: by default a private serial queue (Linux
    /// programs often run no main loop). Set it to `.main` in a UI app.
    public var delegateQueue: DispatchQueue {
        get { observers.withLock { $0.delegateQueue } }
        set { observers.withLock { $0.delegateQueue = newValue } }
    }

    /// A new sequence of every result sent from now on, in order.
    public func results() -> AsyncStream<AnalyticsResult> {
        let (stream, continuation) = AsyncStream<AnalyticsResult>.makeStream()
        let token = observers.withLock { $0.addResultContinuation(continuation) }
        continuation.onTermination = { [weak self] _ in
            self?.observers.withLock { $0.resultContinuations[token] = nil }
        }
        return stream
    }

    /// A new sequence of every error caught from now on.
    public func errors() -> AsyncStream<any Error> {
        let (stream, continuation) = AsyncStream<any Error>.makeStream()
        let token = observers.withLock { $0.addErrorContinuation(continuation) }
        continuation.onTermination = { [weak self] _ in
            self?.observers.withLock { $0.errorContinuations[token] = nil }
        }
        return stream
    }

    /// Has the module log its snapshot (markup) to `dependency.standardOutput`, after the
    /// operations sent before.
    public func logSnapshot() {
        run { engine in
            self.script.recorder?.recordSnapshot()
            try engine.logSnapshot()
        }
    }

    /// The snapshot of the tree once the operations sent before have been handled.
    public func snapshot(format: SnapshotFormat = .markup) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            snapshot(format: format) { continuation.resume(with: $0) }
        }
    }

    /// The snapshot, passed to `completion` on the script queue.
    public func snapshot(format: SnapshotFormat = .markup, completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        run(onFailure: { completion(.failure($0)) }) { engine in
            completion(.success(try engine.snapshot(format: format)))
        }
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
    /// It is encoded right away, on the calling thread.
    func send(_ operation: ModuleOperation, time: Double = Manager.now()) {
        enqueue { $0.append(operation, time: time) }
    }

    /// Queues `recordEvent` (encoded right away, on the calling thread).
    func sendEvent(id: NodeID, name: String, properties: EventProperties, time: Double) {
        enqueue { $0.appendEvent(id: id, name: name, properties: properties, time: time) }
    }

    /// The most operations kept while a module fails to load in debug mode (oldest dropped).
    static let backlogLimit = 100_000

    /// The wall clock in whole milliseconds since the epoch (as `Date.now()` in JavaScript).
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)  // `Date()` costs about twice as much on the hot path
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec / 1_000_000)
    }

    private func run(onFailure: (@Sendable (any Error) -> Void)? = nil, _ body: @escaping @Sendable (AnalyticsEngine) throws -> Void) {
        enqueue(.engineTask(body, onFailure: onFailure))
    }

    private func enqueue(_ task: ScriptTask) {
        enqueue { $0.append(task) }
    }

    /// Adds work to the queue under its lock and schedules a drain unless one is scheduled.
    private func enqueue(_ add: (inout WorkQueue) -> Void) {
        let mustSchedule = pending.withLock { queue in
            add(&queue)
            return queue.scheduleDrain()
        }
        if mustSchedule { scriptQueue.async { self.drain() } }
    }

    /// Runs on the script queue until nothing is queued: handles the work chunk by chunk, in
    /// order. Operations go to JavaScript in batches; each chunk's results go to the delegate
    /// queue in one block, so they are decoded there while the next chunk runs.
    private func drain() {
        while var chunk = pending.withLock({ $0.takeChunk() }) {
            script.strings.add(chunk.operations)
            var start = 0
            for (position, task) in chunk.tasks {
                apply(chunk.operations, start..<position)
                start = position
                run(task)
            }
            apply(chunk.operations, start..<chunk.operations.count)
            deliverCollectedResults()
            chunk.removeAll()
            pending.withLock { $0.recycle(chunk) }
        }
    }

    private func run(_ task: ScriptTask) {
        switch task {
        case let .engineTask(body, onFailure):
            let engine: AnalyticsEngine
            switch loadedEngine() {
            case let .success(loaded): engine = loaded
            case let .failure(error):
                onFailure?(error)
                return
            }
            do { try body(engine) } catch {
                if let onFailure { onFailure(error) } else { report(error) }
            }
        case let .barrier(resume):
            deliverCollectedResults()
            delegateQueue.async { resume() }
        }
    }

    /// Sends operations `range` of a chunk to the engine (kept for replay while a debug
    /// module is broken).
    private func apply(_ batch: EncodedOperations, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let decoder = OperationDecoder(batch: batch, table: script.strings)
        guard case let .success(engine) = loadedEngine() else {
            if dependency.debug { keepForReplay(range.map(decoder.operation(at:))) }
            return
        }
        writeToRecording(range.lazy.map(decoder.operation(at:)))
        engine.apply(batch, range, table: .manager, strings: script.strings, operation: { decoder.operation(at: $0).operation }) { _, error in
            report(error)
        }
    }

    /// Writes operations to the recording, when there is one (`Dependency.recordingURL`).
    private func writeToRecording(_ operations: some Sequence<TimedOperation>) {
        script.recorder?.record(operations)
    }

    /// Keeps operations sent while a debug module fails to load, up to ``backlogLimit``
    /// (the oldest go first).
    private func keepForReplay(_ operations: [TimedOperation]) {
        script.backlog.append(contentsOf: operations)
        let excess = script.backlog.count - Self.backlogLimit
        guard excess > 0 else { return }
        script.backlog.removeFirst(excess)
        if !script.backlogOverflowReported {
            script.backlogOverflowReported = true
            report(AnalyticsError.backlogOverflow(kept: Self.backlogLimit))
        }
    }

    /// The engine, loading the module on first use. In debug mode a module that failed to
    /// load is tried again on each later call, and the operations sent meanwhile are replayed
    /// once it loads, so fixing a file loses nothing.
    private func loadedEngine() -> Result<AnalyticsEngine, any Error> {
        if let engine = script.engine { return .success(engine) }
        if script.recorder == nil, !script.recorderFailed, let url = dependency.recordingURL {
            do {
                script.recorder = try EventStreamRecorder(url: url) { [weak self] error in self?.report(error) }
            } catch {
                script.recorderFailed = true
                report(error)
            }
        }
        if let error = script.lastLoadError, !dependency.debug { return .failure(error) }
        do {
            let results = script.collected
            let engine = try AnalyticsEngine(
                configuration: .init(
                    moduleURL: moduleURL, debug: dependency.debug, coreURL: dependency.coreJSModuleURL,
                    additionalAllowedRoots: dependency.additionalAllowedRoots,
                    executionTimeLimit: dependency.executionTimeLimit, fileAccess: dependency.fileManager,
                    console: Console(output: dependency.standardOutput, errorOutput: dependency.standardError))
            ) { result in results.append(result) }
            engine.resultSink = { pending in results.append(pending) }
            script.engine = engine
            script.lastLoadError = nil
            script.backlogOverflowReported = false
            let backlog = Array(script.backlog)
            script.backlog.removeAll()
            writeToRecording(backlog)
            engine.apply(backlog) { _, error in report(error) }
            return .success(engine)
        } catch {
            // Retried on every call in debug mode: report a failure once until it changes.
            let repeated = script.lastLoadError.map { String(describing: $0) == String(describing: error) } ?? false
            script.lastLoadError = error
            if !repeated { report(error) }
            return .failure(error)
        }
    }

    /// Hands the results and errors gathered so far to the delegate queue in one block, which
    /// decodes the pending batches there (off the script queue) and delivers all in order.
    private func deliverCollectedResults() {
        let parts = script.collected.take()
        guard !parts.isEmpty else { return }
        let (delegate, queue, resultContinuations, errorContinuations) = observers.withLock {
            ($0.delegate.value, $0.delegateQueue, Array($0.resultContinuations.values), Array($0.errorContinuations.values))
        }
        guard delegate != nil || !resultContinuations.isEmpty || !errorContinuations.isEmpty else { return }
        queue.async {
            func send(_ result: AnalyticsResult) {
                for continuation in resultContinuations { continuation.yield(result) }
                delegate?.manager(self, didSend: result)
            }
            for part in parts {
                switch part {
                case let .result(result): send(result)
                case let .pending(pending): pending.forEach { _, result in send(result) }
                case let .error(error):
                    for continuation in errorContinuations { continuation.yield(error) }
                    delegate?.manager(self, didCatch: error)
                }
            }
        }
    }

    /// Reports an error after the results collected before it (on the script queue).
    private func report(_ error: any Error) {
        script.collected.append(error)
    }
}

extension Manager {
    fileprivate struct WeakDelegate: @unchecked Sendable {
        weak var value: (any ManagerDelegate)?
    }

    fileprivate struct Observers: Sendable {
        var delegate = WeakDelegate(value: nil)
        var delegateQueue = DispatchQueue(label: "anna.manager.delegate")
        var resultContinuations: [Int: AsyncStream<AnalyticsResult>.Continuation] = [:]
        var errorContinuations: [Int: AsyncStream<any Error>.Continuation] = [:]
        var nextToken = 0

        mutating func addResultContinuation(_ continuation: AsyncStream<AnalyticsResult>.Continuation) -> Int {
            nextToken += 1
            resultContinuations[nextToken] = continuation
            return nextToken
        }

        mutating func addErrorContinuation(_ continuation: AsyncStream<any Error>.Continuation) -> Int {
            nextToken += 1
            errorContinuations[nextToken] = continuation
            return nextToken
        }
    }

    /// State only touched on the script queue.
    fileprivate final class ScriptState: @unchecked Sendable {
        var engine: AnalyticsEngine?
        var lastLoadError: (any Error)?
        var backlog = Deque<TimedOperation>()
        /// The interned strings of the chunks taken so far.
        var strings = StringTableMirror()
        var backlogOverflowReported = false
        var recorderFailed = false
        var recorder: EventStreamRecorder?
        let collected = ResultBuffer()
    }

    /// A result, a batch of results still to be decoded, or an error.
    fileprivate enum ResultPart: Sendable {
        case result(AnalyticsResult)
        case pending(PendingResults)
        case error(any Error)
    }

    /// Results and errors gathered during one drain, handed on together in order.
    fileprivate final class ResultBuffer: @unchecked Sendable {
        private var parts: [ResultPart] = []
        func append(_ result: AnalyticsResult) { parts.append(.result(result)) }
        func append(_ pending: PendingResults) { parts.append(.pending(pending)) }
        func append(_ error: any Error) { parts.append(.error(error)) }
        /// The parts so far, emptying the buffer.
        func take() -> [ResultPart] {
            var taken: [ResultPart] = []
            swap(&taken, &parts)
            return taken
        }
    }
}
