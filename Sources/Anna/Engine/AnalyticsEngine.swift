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
/// What operations produce comes back as the value of the call: an ``EngineOutput`` (results
/// and errors in order) from `apply(_:)` (of an array of operations), the results of one operation from
/// ``recordEvent(name:properties:nodeID:)`` and its kin, which throw its error.
///
/// ```swift
/// let engine = try AnalyticsEngine(configuration: .init(moduleURL: moduleFolder))
/// try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__")
/// for result in try engine.recordEvent(name: "tap", nodeID: NodeID(1)) {
///     print(result.value.jsonText)
/// }
/// ```
public final class AnalyticsEngine {
    /// The configuration the engine was made with.
    public let configuration: Configuration
    /// The module runtime (for tools that need to evaluate more code in it).
    public let runtime: CommonJSRuntime
    /// The time (ms since the epoch) the module's clock reports for operations without a
    /// time of their own; `nil` means the wall clock.
    public var time: Double?
    /// The most operations encoded at a time from an array of them (by `apply(_:)`),
    /// and so sent to JavaScript in one call from such an array.
    public static let maximumBatchSize = 2_048
    /// The most operations sent to JavaScript in one call. The time limit applies to each
    /// operation of a batch; batches shrink while operations are slow (a batch aims at an
    /// eighth of the limit), so a stopped one costs little, and grow back when they are fast.
    /// An event stream's batches (`EventStreamBatch`) go up to this size: each call into
    /// JavaScript has a cost of its own (entering the VM, writing and reading the results'
    /// text, allocations), which larger batches share among more operations.
    public static let maximumCallSize = 8_192
    var batchSize = initialBatchSize
    /// Full garbage collections run because nodes were removed: after a batch that brought
    /// the nodes removed since the last one to at least 1,000 and to at least the number
    /// alive. Without a run loop for its timers, the collector frees them on its own only
    /// once the heap has grown about threefold.
    private(set) var garbageCollections = 0

    /// The manager and the bridge to it; ``reset()`` replaces both.
    var manager: JavaScriptValue {
        didSet { core = CoreServices(manager: manager) }
    }
    /// The manager's optional methods, looked up once per manager.
    private(set) var core: CoreServices
    var bridge: ModuleBridge
    /// Encodes the operations given to `apply(_:)` (of an array of operations).
    var encoder = OperationEncoder()
    var encoderTable = StringTableMirror()
    var taskFileWatch = TaskFileWatch()
    /// The realm as it was before the module loaded, which ``reset()`` restores.
    let resetPoint: Result<JavaScriptValue, JavaScriptError>

    /// Loads the module and constructs its manager.
    /// - Throws: ``AnalyticsError/moduleLoadFailed(module:_:)`` or
    ///   ``AnalyticsError/moduleNotConstructor(module:found:)``.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
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
        let constructed = try Self.constructManager(at: modulePath, in: runtime, bridge: bridge)
        manager = constructed
        core = CoreServices(manager: constructed)
    }

    /// Adds a node to the focus-path tree (`parent` `nil` for the root).
    /// - Returns: The results of the tasks its appearance ran.
    /// - Throws: as `apply(_:)` (of one operation).
    @discardableResult
    public func registerNode(
        id: NodeID, parent: NodeID?, name: String, index: Int? = nil, namespace: String? = nil,
        attributes: JSONValue? = nil
    ) throws -> [AnalyticsResult] {
        try apply(.register(id: id, parent: parent, name: name, index: index, namespace: namespace, attributes: attributes))
    }

    /// Removes the node, every keyed node of the same owner (for a plain ID) and their descendants.
    /// - Returns: The results of the tasks the removal ran.
    /// - Throws: as `apply(_:)` (of one operation).
    @discardableResult
    public func deregisterNodes(id: NodeID) throws -> [AnalyticsResult] {
        try apply(.deregister(id: id))
    }

    /// Records an event on a node; matching tasks run.
    /// - Returns: Their results, in order.
    /// - Throws: ``AnalyticsError/tasksFailed(_:)`` after all tasks ran when some threw.
    @discardableResult
    public func recordEvent(name: String, properties: JSONValue = [:], nodeID: NodeID) throws -> [AnalyticsResult] {
        try apply(.event(id: nodeID, name: name, properties: properties))
    }

    /// Applies one operation at ``time``.
    /// - Returns: Its results, in order.
    /// - Throws: its ``AnalyticsError`` (the last, when there are several), its results
    ///   dropped; `apply(_:)` (of an array of operations) gives both.
    @discardableResult
    public func apply(_ operation: ModuleOperation) throws -> [AnalyticsResult] {
        let output = apply([TimedOperation(operation, time: time)])
        var results: [AnalyticsResult] = []
        var failure: AnalyticsError?
        output.forEach(result: { results.append($0) }, error: { _, error in failure = error })
        if let failure { throw failure }
        return results
    }

    /// Applies operations in order, many per call into JavaScript; a failing operation never
    /// stops the ones after it.
    /// - Returns: Their results and errors (with the operations' positions), in the order
    ///   they happened.
    public func apply(_ operations: [TimedOperation]) -> EngineOutput {
        apply(operations[...])
    }

    /// Applies a slice of operations like the array version does; error positions are
    /// indices of the slice (those of the array it is cut from). They are encoded and sent
    /// ``maximumBatchSize`` at a time, so no buffer grows with the input.
    public func apply(_ operations: ArraySlice<TimedOperation>) -> EngineOutput {
        var output = EngineOutput()
        var start = operations.startIndex
        while start < operations.endIndex {
            let run = operations[start..<min(start + Self.maximumBatchSize, operations.endIndex)]
            encoder.beginBatch()
            for item in run { encoder.encode(item.operation, time: item.time ?? time) }
            encoderTable.add(encoder.batch)
            let base = run.startIndex
            apply(encoder.batch, 0..<run.count, at: base, strings: encoderTable, operation: { run[base + $0].operation }, into: &output)
            start = run.endIndex
        }
        return output
    }

    /// Applies operations `range` of an encoded batch, like `apply(_:)` (of an array of operations), adding what
    /// they produce to `output`; error positions are offsets in the batch plus `base`.
    /// `strings` is the table of the encoder that made `batch`, after it. `operation` reads
    /// an operation back (by offset) for error messages.
    func apply(
        _ batch: EncodedOperations, _ range: Range<Int>, at base: Int = 0, strings: StringTableMirror,
        operation: (Int) -> ModuleOperation, into output: inout EngineOutput
    ) {
        var start = range.lowerBound
        if configuration.watchTasks, !range.isEmpty {
            reloadChangedTaskFiles { output.append($0, at: base + range.lowerBound) }
        }
        while start < range.upperBound {
            let end = min(start + batchSize, range.upperBound)
            start = run(batch, start..<end, at: base, strings: strings, operation: operation, into: &output)
        }
        if configuration.watchTasks, !range.isEmpty {
            noteNewTaskFiles { output.append($0, at: base + range.upperBound - 1) }
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

    /// Sends one batch, adds what it produced to `output`, and returns where the next one
    /// starts. An operation that throws is reported and the others go on; one that the time
    /// limit stops is blamed (it was running when the limit hit; it is not run again, as it
    /// may have half happened), the tasks of its event after the stopped one run, and the
    /// next batches start small.
    private func run(
        _ batch: EncodedOperations, _ range: Range<Int>, at base: Int, strings: StringTableMirror,
        operation: (Int) -> ModuleOperation, into output: inout EngineOutput
    ) -> Int {
        let started = ContinuousClock.now
        var outcome: ModuleBridge.Outcome
        do {
            outcome = try bridge.send(batch, range, strings: strings)
        } catch {
            // Nothing was sent: every operation of the range failed.
            for position in range {
                output.append(.operationFailed(operation: operation(position).summary, ModuleBridge.javaScriptError(error)), at: base + position)
            }
            return range.upperBound
        }
        guard let stop = outcome.stop else {
            add(outcome, of: range, at: base, through: outcome.finished, stops: [], operation: operation, to: &output)
            do {
                try runtime.context.checkMemory(after: "the operations up to this one")
            } catch {
                let last = range.upperBound - 1
                output.append(.operationFailed(operation: operation(last).summary, ModuleBridge.javaScriptError(error)), at: base + last)
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
        let job =
            inPromiseJob || outcome.stoppedJobBefore != nil
            ? bridge.stoppedJob(afterStoppedOperation: !inPromiseJob) : (operation: nil, task: nil)
        let jobBlamed = job.operation.map { min($0, offset) } ?? offset
        let blamed = inPromiseJob ? jobBlamed : offset
        let stopped = operation(range.lowerBound + blamed)
        let running = (inPromiseJob ? job.task.flatMap(Self.describeTask) : nil) ?? runningTask()
        var stops = [(blamed, AnalyticsError.failure(of: stopped, stop, runningTask: running, inPromiseJob: inPromiseJob))]
        if let jobStop = outcome.stoppedJobBefore {
            // The promise jobs queued before the stopped operation ran as its call ended, and
            // one of them was stopped too: reported as that job's, blamed on what queued it.
            let queuedBy = operation(range.lowerBound + jobBlamed)
            let task = job.task.flatMap(Self.describeTask)
            stops.append((jobBlamed, .failure(of: queuedBy, jobStop, runningTask: task, inPromiseJob: true)))
        }
        if inPromiseJob || outcome.stoppedJobBefore != nil {
            do {
                try bridge.abandonPending()
            } catch {
                stops.append((blamed, .failure(of: stopped, ModuleBridge.javaScriptError(error))))
            }
        }
        if !inPromiseJob {
            stops += resumeStoppedEvent(of: stopped, after: running).map { (blamed, $0) }
        }
        bridge.takeProduced(into: &outcome)
        add(outcome, of: range, at: base, through: offset + 1, stops: stops, operation: operation, to: &output)
        batchSize = 1
        return range.lowerBound + offset + 1
    }

    private func adjustBatchSize(after elapsed: Duration, operations: Int) {
        let limit = configuration.executionTimeLimit
        if elapsed > limit / 8 {
            batchSize = max(1, operations / 4)
        } else if elapsed < limit / 64 {
            batchSize = min(Self.maximumCallSize, max(batchSize, operations) * 2)
        }
    }

    /// Adds the results and errors of the batch's operations before offset `through` to
    /// `output`, with `stops` (errors by offset) after the others of their operation: the
    /// results undecoded, as one part, and the errors in their places among them.
    private func add(
        _ outcome: ModuleBridge.Outcome, of batch: Range<Int>, at base: Int, through: Int, stops: [(Int, AnalyticsError)],
        operation: (Int) -> ModuleOperation, to output: inout EngineOutput
    ) {
        let last = through > 0 ? base + batch.lowerBound + through - 1 : nil
        guard !outcome.errors.isEmpty || !stops.isEmpty || outcome.readFailure != nil else {
            if outcome.results.text.count > 2, let last { output.append(.results(outcome.results, last: last)) }  // "[]": nothing
            return
        }
        let errors =
            outcome.errors.map { ($0.offset, AnalyticsError.failure(of: operation(batch.lowerBound + $0.offset), $0.error)) }
            + stops
        let ordered = errors.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element)
        let readFailure = outcome.readFailure.map { failure in
            AnalyticsError.operationFailed(
                operation: "reading the results of \(operation(batch.lowerBound + through - 1).summary) and the operations before it", failure)
        }
        output.append(
            .mixed(
                MixedResults(
                    results: outcome.results,
                    errors: ordered.filter { $0.0 < through }.map { (offset: $0.0, position: base + batch.lowerBound + $0.0, error: $0.1) },
                    through: through, readFailure: through > 0 ? readFailure : nil, last: last)))
    }
}
