import CoreJS
import Foundation

/// How the JavaScript runtime of an analytics module is made: the one configuration passed
/// down unchanged from ``Manager/Dependency`` through ``AnalyticsEngine/Configuration`` to
/// the runtime, and the one recipe (``makeRuntime(confinedTo:)``) for every runtime that
/// needs the core (engines, `anna check`, the core's own tests).
public struct RuntimeConfiguration: Sendable {
    /// Passed to the module as `config.debug`: task files are re-required on every load, and
    /// a ``Manager`` retries a module that failed to load.
    public var debug: Bool
    /// The folder of the JavaScript core, put on the search paths so `require('anna')` finds
    /// it (the folder must be named `anna`). Default: the core bundled with the package.
    public var coreURL: URL
    /// Folders besides the module's own and the core's that modules may be read from.
    public var additionalAllowedRoots: [URL]
    /// The CPU time one operation (a registration, an event, a snapshot, a task file's load
    /// with the registration that loads it) may run before it is stopped.
    public var executionTimeLimit: Duration
    /// Bytes the module's heap may hold while its scripts run before they are stopped (and
    /// checked after each batch); `nil` for no limit. Default: 512 MB.
    public var memoryLimit: Int?
    /// Where module files come from (inject `InMemoryFileAccess` in tests).
    public var fileAccess: any FileAccess
    /// Where `console` output of tasks goes.
    public var console: Console
    /// Reload a task file when it changes on disk: before a batch (at most every 0.2 s) the
    /// engine compares the modification times of the task files the core tried, and the next
    /// event runs the new code (the file's old tasks are dropped, as a debug reload does).
    public var watchTasks: Bool

    /// The time limit unless one is given: 2 s.
    public static let defaultExecutionTimeLimit: Duration = .seconds(2)
    /// The memory limit unless one is given: 512 MB.
    public static let defaultMemoryLimit = 512 << 20

    /// Creates a configuration; the defaults are the bundled core, a 2 s limit, files from
    /// disk and the console on standard output.
    public init(
        debug: Bool = false, coreURL: URL = BundledCore.folderURL, additionalAllowedRoots: [URL] = [],
        executionTimeLimit: Duration = defaultExecutionTimeLimit, fileAccess: any FileAccess = LocalFileAccess(), console: Console = .standard,
        watchTasks: Bool = false, memoryLimit: Int? = defaultMemoryLimit
    ) {
        self.watchTasks = watchTasks
        self.memoryLimit = memoryLimit
        self.debug = debug
        self.coreURL = coreURL
        self.additionalAllowedRoots = additionalAllowedRoots
        self.executionTimeLimit = executionTimeLimit
        self.fileAccess = fileAccess
        self.console = console
    }

    /// A runtime in a new context with this configuration's time and memory limits, where
    /// `require('anna')` finds the core, modules are read only below `folder`, the core and
    /// ``additionalAllowedRoots``, and the global `require` resolves from `folder`.
    /// - Throws: `JavaScriptError` when the runtime cannot be installed.
    public func makeRuntime(confinedTo folder: String) throws -> CommonJSRuntime {
        let core = coreURL.standardizedFileURL.path
        return try CommonJSRuntime(
            context: JavaScriptContext(executionTimeLimit: executionTimeLimit, memoryLimit: memoryLimit),
            configuration: .init(
                searchPaths: [ModulePath.directory(of: core)],
                allowedRoots: [folder, core] + additionalAllowedRoots.map(\.standardizedFileURL.path),
                fileAccess: fileAccess, console: console, baseDirectory: folder))
    }
}
