import CoreJS
import DequeModule
import Dispatch
import Foundation
import Logging
import Synchronization

/// The serial queue a ``Manager``'s engine lives on: the only place JavaScript runs.
///
/// Senders add work to a ``WorkQueue`` under its lock (operations are encoded right there, on
/// the sending thread); the first sender after the queue ran dry schedules a drain. The
/// drain hands the work to the engine chunk by chunk, loads the module on first use, in
/// debug mode retries a module that failed to load and replays what was sent meanwhile, and
/// writes the recording. What the engine produces comes back as the value of each call
/// (``EngineOutput``); the results and errors of each chunk go to ``ResultDelivery`` in one
/// block.
final class ScriptQueue: @unchecked Sendable {
    /// The most operations kept while a module fails to load in debug mode (oldest dropped).
    static let backlogLimit = 100_000

    private let configuration: AnalyticsEngine.Configuration
    private let recordingURL: URL?
    private let redaction: Redaction?
    private let delivery: ResultDelivery
    private let logger: Logger
    private let queue = DispatchQueue(label: "anna.manager.script")
    private let pending = Locked(WorkQueue())

    // Only touched on `queue`.
    private var engine: AnalyticsEngine?
    private var lastLoadError: (any Error)?
    private var backlog = Deque<TimedOperation>()
    private var backlogOverflowReported = false
    /// The interned strings of the chunks taken so far.
    private var strings = StringTableMirror()
    private var recorder: EventStreamRecorder?
    private var recorderFailed = false
    /// Set while the user opted out (``Manager/optOut()``): nothing is written to the recording.
    private var recordingPaused = false
    /// Results and errors gathered since the last delivery, in order.
    private var collected: [ResultDelivery.Part] = []
    /// The engine's output of the last call, emptied into ``collected`` (its storage reused).
    private var produced = EngineOutput()
    /// In debug mode: the namespaces registered so far, and the load warnings logged.
    private var namespacesSeen = Set<String>()
    private var loadWarningsLogged = Set<String>()
    private var loadWarningsUnavailable = false
    /// The operations of the chunk taken and not yet handed to the engine (the drain at exit
    /// counts them when it times out, or when a task of the chunk ends the process).
    private let chunkOperationsLeft = Atomic<Int>(0)

    init(
        configuration: AnalyticsEngine.Configuration, recordingURL: URL?, redaction: Redaction? = nil, delivery: ResultDelivery,
        logger: Logger
    ) {
        self.configuration = configuration
        self.recordingURL = recordingURL
        self.redaction = redaction
        self.delivery = delivery
        self.logger = logger
        queue.setSpecific(key: Self.queueKey, value: UInt(bitPattern: ObjectIdentifier(self)))
    }

    /// Marks the script queues, so the drain at exit knows the thread it runs on.
    private static let queueKey = DispatchSpecificKey<UInt>()

    /// Whether the calling thread is running this queue's work.
    private var isCurrent: Bool {
        DispatchQueue.getSpecific(key: Self.queueKey) == UInt(bitPattern: ObjectIdentifier(self))
    }

    /// Starts the drain at exit: resumes a paused queue and queues a signal behind everything
    /// sent so far; `nil` when the exiting thread runs this queue (it cannot wait for itself).
    func beginExitDrain(for manager: Manager) -> DispatchSemaphore? {
        guard !isCurrent else {
            deliverCollected()  // a task on this queue ends the process: what ran is delivered
            return nil
        }
        let handled = DispatchSemaphore(value: 0)
        setPaused(false, for: manager)
        enqueue(for: manager) { $0.append(.handled { handled.signal() }) }
        return handled
    }

    /// Waits for the drain at exit begun by ``beginExitDrain(for:)`` until `deadline`.
    /// - Returns: How many operations were not handled then: still queued, or in the chunk
    ///   being handled and not yet handed to the engine (e.g. behind a runaway task).
    func finishExitDrain(_ handled: DispatchSemaphore?, before deadline: ContinuousClock.Instant) -> Int {
        let seconds = max(0, Double((deadline - ContinuousClock.now) / .milliseconds(1)) / 1000)
        if let handled, handled.wait(timeout: .now() + seconds) == .success { return 0 }
        return queuedCount + chunkOperationsLeft.load(ordering: .acquiring)
    }

    /// Adds work under the queue's lock and schedules a drain unless one is scheduled; the
    /// drain keeps `manager` (the sender its delivery names) alive until it is done.
    func enqueue(for manager: Manager, _ add: (inout WorkQueue) -> Void) {
        let (mustSchedule, dropping) = pending.withLock { queue in
            add(&queue)
            return (queue.scheduleDrain(), queue.takeDropWarning())
        }
        if mustSchedule { scheduleDrain(keeping: manager) }
        if dropping {
            logger.warning(
                "the manager is paused and holds \(WorkQueue.pausedLimit) operations, its most: operations sent until resume() are dropped (counted, and reported on resume)"
            )
        }
    }

    /// Pauses (work is kept, none is run) or resumes the queue.
    func setPaused(_ paused: Bool, for manager: Manager) {
        if pending.withLock({ $0.setPaused(paused) }) { scheduleDrain(keeping: manager) }
    }

    private func scheduleDrain(keeping manager: Manager) {
        queue.async { withExtendedLifetime(manager) { self.drain() } }
    }

    /// Whether the queue is paused.
    var isPaused: Bool { pending.withLock { $0.paused } }

    /// Events queued since the queue was made.
    var queuedEventTotal: Int { pending.withLock { $0.eventCount } }

    /// Operations queued and not yet taken.
    var queuedCount: Int { pending.withLock { $0.queuedCount } }

    /// Runs until nothing is queued: handles the work chunk by chunk, in order. Operations go
    /// to the engine in batches; each chunk's results go to the delegate queue in one block,
    /// so they are decoded there while the next chunk runs.
    private func drain() {
        while var chunk = pending.withLock({ $0.takeChunk() }) {
            strings.add(chunk.operations)
            chunkOperationsLeft.store(chunk.operations.count, ordering: .releasing)
            var start = 0
            for (position, task) in chunk.tasks {
                apply(chunk.operations, start..<position)
                start = position
                chunkOperationsLeft.store(chunk.operations.count - position, ordering: .releasing)
                run(task)
            }
            apply(chunk.operations, start..<chunk.operations.count)
            chunkOperationsLeft.store(0, ordering: .releasing)
            deliverCollected()
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
        case let .report(error):
            report(error)
        case .logSnapshot:
            guard case let .success(engine) = loadedEngine() else { return }  // the load failure is reported
            recorder?.recordSnapshot()
            do { try engine.logSnapshot() } catch { report(error) }
        case let .barrier(resume):
            deliverCollected()
            delivery.delegateQueue.async { resume() }
        case let .handled(signal):
            deliverCollected()
            signal()
        case let .recording(on):
            recordingPaused = !on
        }
    }

    /// Sends operations `range` of a chunk to the engine (kept for replay while a debug
    /// module is broken).
    private func apply(_ batch: EncodedOperations, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let decoder = OperationDecoder(batch: batch, table: strings)
        let loaded = loadedEngine()
        // Recorded as sent, whether or not the module loaded: the session is what the app did.
        if let recorder, !recordingPaused {
            let redaction = redaction
            recorder.record(
                range.lazy.map { offset in
                    let operation = decoder.operation(at: offset)
                    return redaction.map { $0.redact(operation) } ?? operation
                })
        }
        guard case let .success(engine) = loaded else {
            if configuration.debug { keepForReplay(range.map(decoder.operation(at:))) }
            return
        }
        engine.apply(batch, range, strings: strings, operation: { decoder.operation(at: $0).operation }, into: &produced)
        collectProduced()
        if configuration.debug { checkLoadWarnings(after: range.lazy.compactMap(decoder.registeredNamespace(at:)), on: engine) }
    }

    /// In debug mode, once a node registers with a namespace not seen before: when that
    /// namespace has no task file, logs each line of ``Coverage/loadWarnings`` not logged yet
    /// (a task file never loaded beside it: a renamed class).
    private func checkLoadWarnings(after namespaces: some Sequence<String>, on engine: AnalyticsEngine) {
        guard !loadWarningsUnavailable else { return }
        var fresh: Set<String> = []
        for namespace in namespaces where namespacesSeen.insert(namespace).inserted {
            fresh.insert(namespace)
        }
        guard !fresh.isEmpty else { return }
        let coverage: Coverage
        do {
            coverage = try engine.coverage()
        } catch {
            loadWarningsUnavailable = true
            logger.warning("cannot look for task files never loaded (debug mode): \(error)")
            return
        }
        guard coverage.namespacesWithoutTaskFile.contains(where: { fresh.contains($0.namespace) }) else { return }
        for line in coverage.loadWarnings where loadWarningsLogged.insert(line).inserted {
            logger.warning("\(line)")
        }
    }

    /// Keeps operations sent while a debug module fails to load, up to ``backlogLimit``
    /// (the oldest go first).
    private func keepForReplay(_ operations: [TimedOperation]) {
        backlog.append(contentsOf: operations)
        let excess = backlog.count - Self.backlogLimit
        guard excess > 0 else { return }
        backlog.removeFirst(excess)
        if !backlogOverflowReported {
            backlogOverflowReported = true
            report(AnalyticsError.backlogOverflow(kept: Self.backlogLimit))
        }
    }

    /// The engine, loading the module on first use. In debug mode a module that failed to
    /// load is tried again on each later call, and the operations sent meanwhile are replayed
    /// once it loads, so fixing a file loses nothing.
    private func loadedEngine() -> Result<AnalyticsEngine, any Error> {
        if let engine { return .success(engine) }
        openRecordingOnce()
        if let lastLoadError, !configuration.debug { return .failure(lastLoadError) }
        do {
            // Only this queue holds and calls the engine, so it never outlives `self`.
            let engine = try AnalyticsEngine(configuration: configuration)
            self.engine = engine
            lastLoadError = nil
            backlogOverflowReported = false
            // Only a backlog is copied: an array made from an empty Deque writes its count (0)
            // into the standard library's shared empty storage, a race ThreadSanitizer reports.
            if !backlog.isEmpty {
                let replayed = Array(backlog)
                backlog.removeAll()  // recorded when they were sent
                collect(engine.apply(replayed))
            }
            return .success(engine)
        } catch {
            // Retried on every call in debug mode: report a failure once until it changes.
            let repeated = lastLoadError.map { String(describing: $0) == String(describing: error) } ?? false
            lastLoadError = error
            if !repeated { report(error) }
            return .failure(error)
        }
    }

    /// Opens the recording (``Manager/Dependency/recordingURL``) the first time it is needed.
    private func openRecordingOnce() {
        guard recorder == nil, !recorderFailed, let recordingURL else { return }
        do {
            recorder = try EventStreamRecorder(url: recordingURL) { [weak self] error in self?.report(error) }
        } catch {
            recorderFailed = true
            report(error)
        }
    }

    /// Hands the results and errors gathered so far to the delegate queue.
    private func deliverCollected() {
        guard !collected.isEmpty else { return }
        var parts: [ResultDelivery.Part] = []
        swap(&parts, &collected)
        delivery.deliver(parts)
    }

    /// Moves the engine's last output after what was collected before it.
    private func collectProduced() {
        collect(produced)
        produced.removeAll()
    }

    private func collect(_ output: EngineOutput) {
        for part in output.parts { collected.append(.output(part)) }
    }

    /// Reports an error after the results collected before it.
    private func report(_ error: any Error) {
        collected.append(.error(error))
    }
}
