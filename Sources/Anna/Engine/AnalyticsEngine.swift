import CoreJS
import Foundation

/// An analytics module loaded into its own JavaScript runtime: the synchronous bridge under
/// ``Manager``, also usable directly by tools (the `anna` command) on a single thread.
///
/// It requires the module, constructs its manager with a `receive` callback and a config
/// (`debug`, `now`), and forwards the module protocol: register, deregister, record,
/// snapshot. It relies on nothing beyond that protocol, so modules built on older cores work.
///
/// Not thread-safe: use one engine from one thread or serial queue.
///
/// ```swift
/// let engine = try AnalyticsEngine(configuration: .init(moduleURL: moduleFolder)) { result in
///     print(result.value.jsonText)
/// }
/// try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
/// ```
public final class AnalyticsEngine {
    /// The configuration the engine was made with.
    public let configuration: Configuration
    /// The module runtime (for tools that need to evaluate more code in it).
    public let runtime: CommonJSRuntime
    /// The time (ms since the epoch) the module's clock reports for operations without a
    /// time of their own; `nil` means the wall clock.
    public var time: Double?
    /// The most operations encoded at a time from an array of them (``apply(_:onError:)``),
    /// and so sent to JavaScript in one call from such an array.
    public static let maximumBatchSize = 2_048
    /// The most operations sent to JavaScript in one call. The time limit applies to each
    /// operation of a batch; batches shrink while operations are slow (a batch aims at an
    /// eighth of the limit), so a stopped one costs little, and grow back when they are fast.
    /// An event stream's batches (``EventStreamBatch``) go up to this size: each call into
    /// JavaScript has a cost of its own (entering the VM, writing and reading the results'
    /// text, allocations), which larger batches share among more operations.
    public static let maximumCallSize = 8_192
    var batchSize = initialBatchSize
    /// Full garbage collections run because nodes were removed: after a batch that brought
    /// the nodes removed since the last one to at least 1,000 and to at least the number
    /// alive. Without a run loop for its timers, the collector frees them on its own only
    /// once the heap has grown about threefold.
    private(set) var garbageCollections = 0

    private let output: (EngineOutput) -> Void
    /// The manager and the bridge to it; ``reset()`` replaces both.
    var manager: JavaScriptValue
    var bridge: ModuleBridge
    private let decodesResults: Bool
    /// Where results go as text (``init(configuration:onResultTexts:)``), when they do.
    private let textOutput: ((ResultTexts) -> Void)?
    /// Encodes the operations given to ``apply(_:onError:)``.
    var encoder = OperationEncoder()
    var encoderTable = StringTableMirror()
    var taskFileWatch = TaskFileWatch()
    /// The realm as it was before the module loaded, which ``reset()`` restores.
    let resetPoint: Result<JavaScriptValue, JavaScriptError>

    /// Loads the module and constructs its manager.
    /// - Parameter onResult: called synchronously, on the calling thread, for each result.
    /// - Throws: ``AnalyticsError/moduleLoadFailed(module:_:)`` or
    ///   ``AnalyticsError/moduleNotConstructor(module:found:)``.
    public convenience init(configuration: Configuration, onResult: @escaping (AnalyticsResult) -> Void) throws {
        try self.init(
            configuration: configuration,
            deliveringTo: { output in
                if case let .result(result) = output { onResult(result) }
            },
            decodingResults: true)
    }

    /// Loads the module and constructs its manager; what the engine produces goes to
    /// `output`, synchronously, on the calling thread.
    /// With `decodingResults`, results reach `output` one by one (decoded here, a failure
    /// reported among the errors); else a batch in which nothing failed arrives undecoded, or,
    /// with `texts`, goes to `texts` when its text can be passed on as it is (else it is
    /// decoded).
    init(
        configuration: Configuration, deliveringTo output: @escaping (EngineOutput) -> Void, decodingResults: Bool = false,
        texts: ((ResultTexts) -> Void)? = nil
    ) throws {
        self.configuration = configuration
        self.output = output
        decodesResults = decodingResults
        textOutput = texts
        let modulePath = configuration.moduleURL.standardizedFileURL.path
        runtime = try configuration.runtime.makeRuntime(confinedTo: ModuleEntry.folder(of: modulePath, fileAccess: configuration.fileAccess))
        do {
            // Before any module code runs: the bridge keeps the built-ins as they are now.
            bridge = try ModuleBridge(context: runtime.context, debug: configuration.debug)
        } catch let error as JavaScriptError {
            throw AnalyticsError.moduleLoadFailed(module: modulePath, error)
        }
        resetPoint =
            configuration.resettable
            ? Self.takeResetPoint(in: runtime, configuration: configuration)
            : .failure(.typeMismatch("the engine was made without Configuration.resettable, so it cannot be reset: set it to reset the engine"))
        manager = try Self.constructManager(at: modulePath, in: runtime, bridge: bridge)
    }

    /// Adds a node to the focus-path tree (`parent` `nil` for the root).
    public func registerNode(
        id: NodeID, parent: NodeID?, name: String, index: Int? = nil, namespace: String? = nil,
        attributes: JSONValue? = nil
    ) throws {
        try apply(.register(id: id, parent: parent, name: name, index: index, namespace: namespace, attributes: attributes))
    }

    /// Removes the node, every keyed node of the same owner (for a plain ID) and their descendants.
    public func deregisterNodes(id: NodeID) throws {
        try apply(.deregister(id: id))
    }

    /// Records an event on a node; matching tasks run and their results reach `onResult`.
    /// - Throws: ``AnalyticsError/tasksFailed(_:)`` after all tasks ran when some threw.
    public func recordEvent(name: String, properties: JSONValue = [:], nodeID: NodeID) throws {
        try apply(.event(id: nodeID, name: name, properties: properties))
    }

    /// Applies one operation at ``time``.
    /// - Throws: its ``AnalyticsError``, after its results were delivered.
    public func apply(_ operation: ModuleOperation) throws {
        var failure: AnalyticsError?
        apply([TimedOperation(operation, time: time)]) { _, error in failure = error }
        if let failure { throw failure }
    }

    /// Applies operations in order, many per call into JavaScript. Results reach `onResult`
    /// and failures `onError` (with the operation's position), in the order they happen; a
    /// failing operation never stops the ones after it.
    public func apply(_ operations: [TimedOperation], onError: (Int, AnalyticsError) -> Void) {
        apply(operations[...], onError: onError)
    }

    /// Applies a slice of operations like the array version does; error positions
    /// are indices of the slice (those of the array it is cut from). They are encoded and
    /// sent ``maximumBatchSize`` at a time, so no buffer grows with the input.
    public func apply(_ operations: ArraySlice<TimedOperation>, onError: (Int, AnalyticsError) -> Void) {
        var start = operations.startIndex
        while start < operations.endIndex {
            let run = operations[start..<min(start + Self.maximumBatchSize, operations.endIndex)]
            encoder.beginBatch()
            for item in run { encoder.encode(item.operation, time: item.time ?? time) }
            encoderTable.add(encoder.batch)
            let base = run.startIndex
            apply(
                encoder.batch, 0..<run.count, strings: encoderTable, operation: { run[base + $0].operation },
                onError: { onError(base + $0, $1) })
            start = run.endIndex
        }
    }

    /// Applies operations `range` of an encoded batch, like ``apply(_:onError:)`` (error
    /// positions are indices of the batch). `strings` is the table of the encoder that made
    /// `batch`, after it. `operation` reads an operation back for error messages.
    func apply(
        _ batch: EncodedOperations, _ range: Range<Int>, strings: StringTableMirror,
        operation: (Int) -> ModuleOperation, onError: (Int, AnalyticsError) -> Void
    ) {
        var start = range.lowerBound
        if configuration.watchTasks, !range.isEmpty {
            reloadChangedTaskFiles { onError(range.lowerBound, $0) }
        }
        while start < range.upperBound {
            let end = min(start + batchSize, range.upperBound)
            start = run(batch, start..<end, strings: strings, operation: operation, onError: onError)
        }
        if configuration.watchTasks, !range.isEmpty {
            noteNewTaskFiles { onError(range.upperBound - 1, $0) }
        }
    }

    /// The snapshot of the tree in `format`.
    public func snapshot(format: SnapshotFormat = .markup) throws -> String {
        try call("snapshot", [.string(format.rawValue)], describing: "taking a \(format.rawValue) snapshot").toString()
    }

    /// Asks the module to print its snapshot through `console.log`.
    public func logSnapshot() throws {
        try call("logSnapshot", [], describing: "logging a snapshot")
    }

    @discardableResult
    func call(_ method: String, _ arguments: [JSONValue], describing operation: String) throws -> JavaScriptValue {
        do {
            return try manager.property(method).call(arguments, this: manager, operation: operation)
        } catch let error as JavaScriptError {
            throw AnalyticsError.operationFailed(operation: operation, error)
        }
    }

    // MARK: - Batches

    /// Sends one batch and returns where the next one starts. An operation that throws is
    /// reported and the others go on; one that the time limit stops is blamed (it was running
    /// when the limit hit; it is not run again, as it may have half happened), the tasks of
    /// its event after the stopped one run, and the next batches start small.
    private func run(
        _ batch: EncodedOperations, _ range: Range<Int>, strings: StringTableMirror,
        operation: (Int) -> ModuleOperation, onError: (Int, AnalyticsError) -> Void
    ) -> Int {
        let started = ContinuousClock.now
        var outcome: ModuleBridge.Outcome
        do {
            outcome = try bridge.send(batch, range, strings: strings)
        } catch {
            // Nothing was sent: every operation of the range failed.
            for position in range {
                onError(position, .operationFailed(operation: operation(position).summary, ModuleBridge.javaScriptError(error)))
            }
            return range.upperBound
        }
        guard let stop = outcome.stop else {
            deliver(outcome, of: range, through: outcome.finished, stops: [], operation: operation, onError: onError)
            do {
                try runtime.context.checkMemory(after: "the operations up to this one")
            } catch {
                let last = range.upperBound - 1
                onError(last, .operationFailed(operation: operation(last).summary, ModuleBridge.javaScriptError(error)))
            }
            adjustBatchSize(after: ContinuousClock.now - started, operations: range.count)
            if outcome.collectionDue {
                runtime.context.collectGarbage()
                garbageCollections += 1
            }
            return range.upperBound
        }
        // Stopped after the operations (in a promise job one of them queued), or in one.
        let inPromiseJob = outcome.stoppedAfterOperations
        let offset = min(outcome.finished - (inPromiseJob ? 1 : 0), range.count - 1)
        // A promise job runs after every operation of the batch: it is blamed on the one that
        // queued it, and named by its task, where the JavaScript half knows them.
        let job = inPromiseJob ? bridge.stoppedJob() : (operation: nil, task: nil)
        let blamed = job.operation.map { min($0, offset) } ?? offset
        let stopped = operation(range.lowerBound + blamed)
        let running = job.task.flatMap(Self.describeTask) ?? runningTask()
        var stops = [AnalyticsError.failure(of: stopped, stop, runningTask: running, inPromiseJob: inPromiseJob)]
        if inPromiseJob {
            do {
                try bridge.abandonPending()
            } catch {
                stops.append(.failure(of: stopped, ModuleBridge.javaScriptError(error)))
            }
        } else {
            stops += resumeStoppedEvent(of: stopped, after: running)
        }
        bridge.takeProduced(into: &outcome)
        deliver(outcome, of: range, through: offset + 1, stops: stops.map { (blamed, $0) }, operation: operation, onError: onError)
        batchSize = 1
        return range.lowerBound + offset + 1
    }

    private func adjustBatchSize(after elapsed: Duration, operations: Int) {
        let limit = Duration.seconds(configuration.executionTimeLimit)
        if elapsed > limit / 8 {
            batchSize = max(1, operations / 4)
        } else if elapsed < limit / 64 {
            batchSize = min(Self.maximumCallSize, max(batchSize, operations) * 2)
        }
    }

    /// Hands on the results and errors of the batch's operations before offset `through`, in
    /// order, with `stops` (errors by offset) after the others of their operation: as one
    /// undecoded batch when nothing failed, else result by result between the errors.
    private func deliver(
        _ outcome: ModuleBridge.Outcome, of batch: Range<Int>, through: Int, stops: [(Int, AnalyticsError)],
        operation: (Int) -> ModuleOperation, onError: (Int, AnalyticsError) -> Void
    ) {
        let errors =
            outcome.errors.map { ($0.offset, AnalyticsError.failure(of: operation(batch.lowerBound + $0.offset), $0.error)) }
            + stops
        let nothingFailed = errors.isEmpty && outcome.readFailure == nil
        if outcome.results.text.count <= 2, nothingFailed { return }  // "[]": nothing
        if !decodesResults, nothingFailed {
            guard let textOutput else {
                output(.results(outcome.results))
                return
            }
            if let texts = ResultTexts(scanning: outcome.results) {
                textOutput(texts)
                return
            }
        }
        let ordered = errors.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element)
        var nextError = 0
        var decodeFailure: AnalyticsError?
        do {
            try outcome.results.forEachResult { offset, result in
                guard offset < through else { return }
                while nextError < ordered.count, ordered[nextError].0 < offset {
                    onError(batch.lowerBound + ordered[nextError].0, ordered[nextError].1)
                    nextError += 1
                }
                output(.result(result))
            }
        } catch {
            decodeFailure = error
        }
        for (offset, error) in ordered[nextError...] where offset < through {
            onError(batch.lowerBound + offset, error)
        }
        guard through > 0 else { return }  // with none run, no result was lost
        let last = batch.lowerBound + through - 1
        if let failure = outcome.readFailure {
            onError(last, .operationFailed(operation: "reading the results of \(operation(last).summary) and the operations before it", failure))
        }
        if let decodeFailure { onError(last, decodeFailure) }
    }
}
