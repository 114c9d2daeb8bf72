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
    /// What to load and how.
    public struct Configuration: Sendable {
        /// The analytics module: a folder with `index.js`, or the file itself.
        public var moduleURL: URL
        /// Passed to the module as `config.debug` (task files re-required on every load).
        public var debug: Bool
        /// The folder of the JavaScript core, put on the search paths so `require('anna')`
        /// finds it (the folder must be named `anna`). Default: the core bundled with the package.
        public var coreURL: URL
        /// Folders besides the module's own and the core's that modules may be read from.
        public var additionalAllowedRoots: [URL]
        /// Seconds one call into JavaScript may run before it is stopped.
        public var executionTimeLimit: Double
        /// Where files come from.
        public var fileAccess: any FileAccess
        /// Where `console` output of tasks goes.
        public var console: Console

        /// Creates a configuration with the defaults: bundled core, 2 s limit, files from disk,
        /// console to standard output.
        public init(
            moduleURL: URL, debug: Bool = false, coreURL: URL = BundledCore.folderURL,
            additionalAllowedRoots: [URL] = [], executionTimeLimit: Double = 2,
            fileAccess: any FileAccess = LocalFileAccess(), console: Console = .standard
        ) {
            self.moduleURL = moduleURL
            self.debug = debug
            self.coreURL = coreURL
            self.additionalAllowedRoots = additionalAllowedRoots
            self.executionTimeLimit = executionTimeLimit
            self.fileAccess = fileAccess
            self.console = console
        }
    }

    /// The configuration the engine was made with.
    public let configuration: Configuration
    /// The module runtime (for tools that need to evaluate more code in it).
    public let runtime: CommonJSRuntime
    /// The time (ms since the epoch) the module's clock reports for operations without a
    /// time of their own; `nil` means the wall clock.
    public var time: Double?
    /// The most operations sent to JavaScript in one call. The time limit applies to a whole
    /// call, so batches shrink while operations are slow (a batch aims at an eighth of the
    /// limit) and grow back when they are fast.
    public static let maximumBatchSize = 2_048
    private var batchSize = 256
    /// When this many metas are numbered, both sides start over.
    static let metaLimit = 65_536
    /// Full garbage collections run because nodes were removed: after a batch that brought
    /// the nodes removed since the last one to at least 1,000 and to at least the number
    /// alive. Without a run loop for its timers, the collector frees them on its own only
    /// once the heap has grown about threefold.
    private(set) var garbageCollections = 0

    private let onResult: (AnalyticsResult) -> Void
    /// When set, the results of a batch in which nothing failed go here undecoded instead
    /// of to `onResult` (the ``Manager`` decodes them off the script queue).
    var resultSink: ((PendingResults) -> Void)?
    private let manager: JavaScriptValue
    private let bridge: BridgeFunctions
    /// Encodes the operations given to ``apply(_:onError:)`` (the manager brings its own).
    private var encoder = OperationEncoder()
    private var encoderTable = StringTableMirror()
    /// Per bridge table, the mirror's generation and string count JavaScript holds (`nil`:
    /// unknown, so the next batch sends the whole table).
    private var tablesSent: [BridgeTable: (generation: Int, count: Int)] = [:]
    private var metas: [ResultMeta] = []
    /// The `Float64Array` batches are copied into, reused while large enough.
    private var batchArray: JavaScriptValue?
    private var batchArrayLength = 0

    /// Loads the module and constructs its manager.
    /// - Parameter onResult: called synchronously, on the calling thread, for each result.
    /// - Throws: ``AnalyticsError/moduleLoadFailed(module:_:)`` or
    ///   ``AnalyticsError/moduleNotConstructor(module:found:)``.
    public init(configuration: Configuration, onResult: @escaping (AnalyticsResult) -> Void) throws {
        self.configuration = configuration
        self.onResult = onResult
        let modulePath = configuration.moduleURL.standardizedFileURL.path
        let corePath = configuration.coreURL.standardizedFileURL.path
        let moduleFolder = configuration.fileAccess.isDirectory(atPath: modulePath)
            ? modulePath : ModulePath.directory(of: modulePath)
        runtime = try CommonJSRuntime(
            context: JavaScriptContext(executionTimeLimit: configuration.executionTimeLimit),
            configuration: .init(
                searchPaths: [ModulePath.directory(of: corePath)],
                allowedRoots: [moduleFolder, corePath] + configuration.additionalAllowedRoots.map(\.standardizedFileURL.path),
                fileAccess: configuration.fileAccess, console: configuration.console, baseDirectory: moduleFolder))
        let constructor: JavaScriptValue
        do {
            constructor = try runtime.load(entry: modulePath)
        } catch let error as JavaScriptError {
            throw AnalyticsError.moduleLoadFailed(module: modulePath, error)
        }
        guard constructor.isFunction else {
            throw AnalyticsError.moduleNotConstructor(module: modulePath, found: constructor.toString())
        }
        do {
            let script = try runtime.context.evaluate(ModuleBridgeScript.source, sourceURL: ModuleBridgeScript.sourceURL)
            bridge = try BridgeFunctions(script)
            let config = try script.property("config")
            try config.setProperty("debug", .bool(configuration.debug))
            let arguments = [try script.property("receive"), config]
            let operation = "constructing the manager of \(modulePath)"
            manager = constructor.isConstructor
                ? try constructor.construct(arguments, operation: operation)
                : try constructor.call(arguments, operation: operation)
            try bridge.attach.call([manager])
        } catch let error as JavaScriptError {
            throw AnalyticsError.moduleLoadFailed(module: modulePath, error)
        }
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
            apply(encoder.batch, 0..<run.count, table: .engine, strings: encoderTable,
                  operation: { run[base + $0].operation }) { onError(base + $0, $1) }
            start = run.endIndex
        }
    }

    /// Which interned table of the bridge a batch's string numbers refer to.
    enum BridgeTable: Int {
        /// The engine's own encoder's (``apply(_:onError:)``).
        case engine = 0
        /// The encoder of the ``Manager`` that drives this engine.
        case manager = 1
    }

    /// Applies operations `range` of an encoded batch, like ``apply(_:onError:)`` (error
    /// positions are indices of the batch). `strings` is the table after `batch`; missing
    /// strings are sent first. `operation` reads an operation back for error messages.
    func apply(
        _ batch: EncodedOperations, _ range: Range<Int>, table: BridgeTable, strings: StringTableMirror,
        operation: (Int) -> ModuleOperation, onError: (Int, AnalyticsError) -> Void
    ) {
        var start = range.lowerBound
        while start < range.upperBound {
            let end = min(start + batchSize, range.upperBound)
            start = run(batch, start..<end, table: table, strings: strings, operation: operation, onError: onError)
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
    private func call(_ method: String, _ arguments: [JSONValue], describing operation: String) throws -> JavaScriptValue {
        do {
            return try manager.property(method).call(arguments, this: manager, operation: operation)
        } catch let error as JavaScriptError {
            throw AnalyticsError.operationFailed(operation: operation, error)
        }
    }

    // MARK: - Batches

    /// Sends one batch and returns where the next one starts. An operation that throws is
    /// reported and the others go on; one that the time limit stops is blamed (it was running
    /// when the limit hit; it is not run again, as it may have half happened) and the next
    /// batches start small.
    private func run(
        _ batch: EncodedOperations, _ range: Range<Int>, table: BridgeTable, strings: StringTableMirror,
        operation: (Int) -> ModuleOperation, onError: (Int, AnalyticsError) -> Void
    ) -> Int {
        if metas.count >= Self.metaLimit {
            _ = try? bridge.forgetMetas.call([JavaScriptValue]())
            metas.removeAll(keepingCapacity: true)
        }
        let context = runtime.context
        let started = ContinuousClock.now
        let sent = tablesSent[table].flatMap { $0.generation == strings.generation && $0.count <= strings.strings.count ? $0.count : nil }
        let slice = batch.numbers(of: range)
        let arguments: [JavaScriptValue]
        do {
            let missing = strings.strings[(sent ?? 0)...]
            let numbers = try slice.withUnsafeBufferPointer { try batchArray(holding: $0) }
            let interned = missing.isEmpty ? context.makeValue(.null) : context.makeValue(.array(missing.map(JSONValue.string)))
            let rangeLiterals = batch.literals(of: range)
            let literals = rangeLiterals.isEmpty ? context.makeValue(.null) : context.makeValue(.array(rangeLiterals.map(JSONValue.string)))
            arguments = [
                numbers, context.makeValue(.number(Double(slice.count))), context.makeValue(.number(Double(table.rawValue))),
                interned, literals, context.makeValue(.number(Double(rangeLiterals.startIndex))), context.makeValue(.bool(sent == nil)),
            ]
        } catch {
            // Nothing was sent: every operation of the range failed.
            for position in range {
                onError(position, .operationFailed(operation: operation(position).summary, Self.javaScriptError(error)))
            }
            return range.upperBound
        }
        tablesSent[table] = (strings.generation, strings.strings.count)  // the bridge takes them in before the operations
        let collectionDue: Bool
        do {
            collectionDue = try bridge.apply.call(arguments).toJSON() == .bool(true)
        } catch {
            tablesSent[table] = nil  // a call stopped by the time limit may not have taken them all in
            let stopped = Int((try? bridge.progress.call([JavaScriptValue]()).toJSON().numberValue) ?? 0)
            deliver(range, upTo: stopped, operation: operation, onError: onError)
            let position = min(range.lowerBound + stopped, range.upperBound - 1)
            onError(position, Self.failure(of: operation(position), Self.javaScriptError(error)))
            batchSize = 1
            return position + 1
        }
        deliver(range, upTo: range.count, operation: operation, onError: onError)
        adjustBatchSize(after: ContinuousClock.now - started, operations: range.count)
        if collectionDue {
            context.collectGarbage()
            garbageCollections += 1
        }
        return range.upperBound
    }

    /// The reused batch array with `numbers` at its start (a larger one when they do not fit).
    private func batchArray(holding numbers: UnsafeBufferPointer<Double>) throws -> JavaScriptValue {
        let array: JavaScriptValue
        if let batchArray, batchArrayLength >= numbers.count {
            array = batchArray
        } else {
            batchArrayLength = max(2 * numbers.count, 32_768)
            array = try runtime.context.makeFloat64Array(length: batchArrayLength)
            batchArray = array
        }
        try array.overwriteFloat64Array(from: numbers)
        return array
    }

    private func adjustBatchSize(after elapsed: Duration, operations: Int) {
        let limit = Duration.seconds(configuration.executionTimeLimit)
        if elapsed > limit / 8 {
            batchSize = max(1, operations / 4)
        } else if elapsed < limit / 64 {
            batchSize = min(Self.maximumBatchSize, max(batchSize, operations) * 2)
        }
    }

    /// Hands on the results and errors of the batch's first `finished` operations, in order;
    /// results of an operation that did not finish are dropped with it. With a
    /// ``resultSink`` and nothing failed, the results go there undecoded.
    private func deliver(
        _ batch: Range<Int>, upTo finished: Int, operation: (Int) -> ModuleOperation, onError: (Int, AnalyticsError) -> Void
    ) {
        readNewMetas()
        let pending = takePendingResults()
        var errors: [(Int, AnalyticsError)] = []
        if let thrown = try? bridge.takeErrors.call([JavaScriptValue]()),
            let count = (try? thrown.property("length").toJSON().numberValue).map({ Int($0) }), count > 0
        {
            for pair in stride(from: 0, to: count, by: 2) {
                guard let position = try? thrown.property(String(pair)).toJSON().numberValue,
                    let error = try? thrown.property(String(pair + 1))
                else { continue }
                let offset = Int(position)
                let exception = runtime.context.exception(from: error)
                errors.append((offset, Self.failure(of: operation(batch.lowerBound + offset), .exception(exception))))
            }
        }
        if let resultSink, errors.isEmpty, finished == batch.count {
            if pending.text.count > 2 { resultSink(pending) }  // "[]" holds nothing
            return
        }
        var nextError = 0
        pending.forEach { offset, result in
            guard offset < finished else { return }
            while nextError < errors.count, errors[nextError].0 < offset {
                onError(batch.lowerBound + errors[nextError].0, errors[nextError].1)
                nextError += 1
            }
            onResult(result)
        }
        for (offset, error) in errors[nextError...] where offset < finished {
            onError(batch.lowerBound + offset, error)
        }
    }

    /// Adds the metas JavaScript interned during the batch to the table.
    private func readNewMetas() {
        guard let text = try? bridge.takeMetas.call([JavaScriptValue]()).toString(), !text.isEmpty,
            let fields = try? JSONValue(parsing: text).arrayValue
        else { return }
        for start in stride(from: 0, to: fields.count - 2, by: 3) {
            metas.append(ResultMeta(
                task: fields[start].stringValue ?? "", path: fields[start + 1].stringValue ?? "",
                event: fields[start + 2].stringValue ?? ""))
        }
    }

    /// The collected results as JSON text. Values are written by `JSON.stringify`; a value
    /// it cannot write (a cycle, a BigInt) goes through the general conversion instead (see
    /// ``JSONValue``), and the reader cuts what nests too deeply as that conversion does.
    /// When the text cannot be written at all (a `toJSON` stopped by the time limit), every
    /// result goes through the general conversion, so the others are not lost with it.
    private func takePendingResults() -> PendingResults {
        defer { _ = try? bridge.clearResults.call([JavaScriptValue]()) }
        guard let text = try? bridge.takeResults.call([JavaScriptValue]()).utf8Bytes() else {
            return resultsReadOneByOne()
        }
        var slowValues: [JSONValue] = []
        let slowCount = Int((try? bridge.slowCount.call([JavaScriptValue]()).toJSON().numberValue) ?? 0)
        for index in 0..<slowCount {
            slowValues.append((try? bridge.slowResult.call([JSONValue.number(Double(index))]).toJSON()) ?? .undefined)
        }
        return PendingResults(text: text, slowValues: slowValues, metas: metas)
    }

    /// The collected results, each value read by the general conversion (all of them slow).
    private func resultsReadOneByOne() -> PendingResults {
        var entries: [JSONValue] = []
        var slowValues: [JSONValue] = []
        if let all = try? bridge.allResults.call([JavaScriptValue]()),
            let count = try? all.property("length").toJSON().numberValue
        {
            for start in stride(from: 0, to: Int(count) - 2, by: 3) {
                let operation = (try? all.property(String(start)).toJSON()) ?? .number(0)
                let metaID = (try? all.property(String(start + 1)).toJSON()) ?? .number(-1)
                slowValues.append((try? all.property(String(start + 2)).toJSON()) ?? .undefined)
                entries += [operation, metaID, .object([PendingResults.slowMarker: .number(Double(slowValues.count - 1))])]
            }
        }
        return PendingResults(text: Array(JSONValue.array(entries).jsonText.utf8), slowValues: slowValues, metas: metas)
    }

    /// The error an operation failed with: failed tasks, or the operation itself.
    /// Calls into JavaScript throw ``JavaScriptError``; anything else is wrapped as one.
    static func javaScriptError(_ error: any Error) -> JavaScriptError {
        error as? JavaScriptError ?? .typeMismatch("\(error)")
    }

    static func failure(of operation: ModuleOperation, _ error: JavaScriptError) -> AnalyticsError {
        switch error {
        case .executionTimeLimitExceeded(_, let limit):
            return .operationFailed(operation: operation.summary, .executionTimeLimitExceeded(operation: operation.summary, limitSeconds: limit))
        default:
            if let failures = taskFailures(in: error) { return .tasksFailed(failures) }
            return .operationFailed(operation: operation.summary, error)
        }
    }

    /// The core reports failed tasks as one `TaskError` whose `errors` lists each failure.
    static func taskFailures(in error: JavaScriptError) -> [TaskFailure]? {
        guard let exception = error.exception, exception.name == "TaskError",
            let entries = exception.thrownValue["errors"]?.arrayValue
        else { return nil }
        return entries.map { entry in
            TaskFailure(
                task: entry["task"]?.stringValue ?? "", path: entry["path"]?.stringValue ?? "",
                event: entry["event"]?.stringValue ?? "", message: entry["message"]?.stringValue ?? "",
                stack: entry["stack"]?.stringValue)
        }
    }
}

/// The bridge script's functions, looked up once.
private struct BridgeFunctions {
    let attach: JavaScriptValue
    let apply: JavaScriptValue
    let progress: JavaScriptValue
    let takeResults: JavaScriptValue
    let takeMetas: JavaScriptValue
    let slowCount: JavaScriptValue
    let slowResult: JavaScriptValue
    let allResults: JavaScriptValue
    let clearResults: JavaScriptValue
    let takeErrors: JavaScriptValue
    let forgetMetas: JavaScriptValue

    init(_ script: JavaScriptValue) throws {
        attach = try script.property("attach")
        apply = try script.property("apply")
        progress = try script.property("progress")
        takeResults = try script.property("takeResults")
        takeMetas = try script.property("takeMetas")
        slowCount = try script.property("slowCount")
        slowResult = try script.property("slowResult")
        allResults = try script.property("allResults")
        clearResults = try script.property("clearResults")
        takeErrors = try script.property("takeErrors")
        forgetMetas = try script.property("forgetMetas")
    }
}
