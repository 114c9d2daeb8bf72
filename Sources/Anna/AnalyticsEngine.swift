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
    /// The time (ms since the epoch) the module's clock reports; `nil` means the wall clock.
    public var time: Double?
    private let onResult: (AnalyticsResult) -> Void
    private var manager: JavaScriptValue!
    private var methods: [String: JavaScriptValue] = [:]

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
        let searchPath = ModulePath.directory(of: corePath)
        runtime = try CommonJSRuntime(
            context: JavaScriptContext(executionTimeLimit: configuration.executionTimeLimit),
            configuration: .init(
                searchPaths: [searchPath],
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
        let context = runtime.context
        let receive = context.makeFunction(name: "receive") { [weak self] _, arguments in
            self?.deliver(arguments)
            return context.undefined
        }
        let config = context.makeValue(["debug": .bool(configuration.debug)])
        try config.setProperty("now", context.makeFunction(name: "now") { [weak self] _, _ in
            context.makeValue(.number(self?.time ?? Date().timeIntervalSince1970 * 1000))
        })
        do {
            manager = constructor.isConstructor
                ? try constructor.construct([receive, config], operation: "constructing the manager of \(modulePath)")
                : try constructor.call([receive, config], operation: "constructing the manager of \(modulePath)")
        } catch let error as JavaScriptError {
            throw AnalyticsError.moduleLoadFailed(module: modulePath, error)
        }
    }

    /// Adds a node to the focus-path tree (`parent` `nil` for the root).
    public func registerNode(
        id: NodeID, parent: NodeID?, name: String, index: Int? = nil, namespace: String? = nil,
        attributes: JSONValue? = nil
    ) throws {
        try invoke("registerNode", [
            id.jsonValue, parent?.jsonValue ?? .null, .string(name),
            index.map { .number(Double($0)) } ?? .null, namespace.map(JSONValue.string) ?? .null, attributes ?? .null,
        ], describing: "registering node \(id) '\(name)'")
    }

    /// Removes the node, every keyed node of the same owner (for a plain ID) and their descendants.
    public func deregisterNodes(id: NodeID) throws {
        try invoke("deregisterNodes", [id.jsonValue], describing: "deregistering node \(id)")
    }

    /// Records an event on a node; matching tasks run and their results reach `onResult`.
    /// - Throws: ``AnalyticsError/tasksFailed(_:)`` after all tasks ran when some threw.
    public func recordEvent(name: String, properties: JSONValue = [:], nodeID: NodeID) throws {
        try invoke("recordEvent", [.string(name), properties, nodeID.jsonValue],
                   describing: "recording '\(name)' on node \(nodeID)")
    }

    /// The snapshot of the tree in `format`.
    public func snapshot(format: SnapshotFormat = .markup) throws -> String {
        try invoke("snapshot", [.string(format.rawValue)], describing: "taking a \(format.rawValue) snapshot").toString()
    }

    /// Asks the module to print its snapshot through `console.log`.
    public func logSnapshot() throws {
        try invoke("logSnapshot", [], describing: "logging a snapshot")
    }

    @discardableResult
    private func invoke(_ method: String, _ arguments: [JSONValue], describing operation: @autoclosure () -> String) throws -> JavaScriptValue {
        let function: JavaScriptValue
        if let cached = methods[method] {
            function = cached
        } else {
            do {
                function = try manager.property(method)
            } catch let error as JavaScriptError {
                throw AnalyticsError.operationFailed(operation: operation(), error)
            }
            methods[method] = function
        }
        do {
            return try function.call(arguments, this: manager, operation: operation())
        } catch let error as JavaScriptError {
            if let failures = Self.taskFailures(in: error) { throw AnalyticsError.tasksFailed(failures) }
            throw AnalyticsError.operationFailed(operation: operation(), error)
        }
    }

    private func deliver(_ arguments: [JavaScriptValue]) {
        let value = arguments.first?.toJSON() ?? .undefined
        var meta: ResultMeta?
        if arguments.count > 1, let task = try? arguments[1].property("task").toJSON().stringValue {
            let metaValue = arguments[1].toJSON()
            meta = ResultMeta(
                task: task, path: metaValue["path"]?.stringValue ?? "", event: metaValue["event"]?.stringValue ?? "")
        }
        onResult(AnalyticsResult(value: value, meta: meta))
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
