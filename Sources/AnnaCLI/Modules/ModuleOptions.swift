import Anna
import ArgumentParser
import CoreJS
import Foundation

/// Which analytics code to run: a whole module, or a task folder on the bundled core.
struct ModuleOptions: ParsableArguments {
    @Option(
        name: .customLong("module"),
        help: ArgumentHelp(
            "An analytics module folder (its index.js exports the constructor); any core that follows the module protocol.", valueName: "dir"))
    var modulePath: String?

    @Option(name: .customLong("tasks"), help: ArgumentHelp("A task folder, run with the bundled core.", valueName: "dir"))
    var tasksPath: String?

    @Flag(help: "Debug mode: task files are re-required on every load.")
    var debug = false

    /// The `--time-limit` values accepted, in seconds: from a millisecond (below it even the
    /// runtime's own start is cut short) to an hour (a limit is meant to stop a runaway task
    /// while someone waits; infinity would not stop it at all).
    static let timeLimits: ClosedRange<Double> = 0.001...3600

    @Option(
        name: .customLong("time-limit"),
        help: ArgumentHelp("Seconds of CPU time one operation may run in JavaScript, from 0.001 to 3600.", valueName: "seconds"))
    var timeLimit: Double = 2

    /// The `--memory-limit` values accepted, in megabytes: the core alone needs a few.
    static let memoryLimits: ClosedRange<Int> = 16...1_048_576

    @Option(
        name: .customLong("memory-limit"),
        help: ArgumentHelp("Megabytes the JavaScript heap may hold, from 16 to 1048576.", valueName: "MB"))
    var memoryLimit = RuntimeConfiguration.defaultMemoryLimit >> 20

    @Option(
        name: .customLong("allow-read"),
        help: ArgumentHelp(
            "Let modules read below this folder too (repeatable); by default only the module's folder and the core are readable.",
            valueName: "dir"))
    var allowRead: [String] = []

    func validate() throws {
        guard (modulePath == nil) != (tasksPath == nil) else {
            throw ValidationError("Give exactly one of --module DIR and --tasks DIR.")
        }
        guard Self.timeLimits.contains(timeLimit) else {
            throw ValidationError("--time-limit must be from 0.001 to 3600 seconds, got \(timeLimit).")
        }
        guard Self.memoryLimits.contains(memoryLimit) else {
            throw ValidationError("--memory-limit must be from 16 to 1048576 MB, got \(memoryLimit).")
        }
    }

    /// The folder given, made absolute.
    var folder: URL {
        URL(fileURLWithPath: modulePath ?? tasksPath ?? ".").standardizedFileURL
    }

    /// Whether `--tasks` was given.
    var isTaskFolder: Bool { tasksPath != nil }

    /// The `--allow-read` folders, made absolute.
    var allowedRoots: [URL] {
        allowRead.map { URL(fileURLWithPath: $0).standardizedFileURL }
    }

    /// The engine configuration; fails with 66 (a ``CommandFailure``) when the folder is missing or is the other
    /// kind of folder (a module given to `--tasks`, a task folder given to `--module`).
    func engineConfiguration(console: Console) throws -> AnalyticsEngine.Configuration {
        var configuration = try baseConfiguration(console: console)
        configuration.memoryLimit = memoryLimit << 20
        TypeScriptCache.install()
        return configuration
    }

    private func baseConfiguration(console: Console) throws -> AnalyticsEngine.Configuration {
        if isTaskFolder {
            let tasks = try taskFolder()
            return .init(
                moduleURL: TaskFolderModule.entryURL(in: tasks), debug: debug, additionalAllowedRoots: allowedRoots,
                executionTimeLimit: .seconds(timeLimit), fileAccess: TaskFolderModule(taskFolder: tasks.path), console: console)
        }
        let files = LocalFileAccess()
        guard files.fileExists(atPath: folder.path) else {
            throw CommandFailure("anna: no such module: \(folder.path)", exitCode: ExitCodes.noInput)
        }
        if files.isDirectory(atPath: folder.path), !files.fileExists(atPath: folder.path + "/index.js"),
            !files.fileExists(atPath: folder.path + "/index.ts"), !files.fileExists(atPath: folder.path + "/package.json")
        {
            throw CommandFailure(
                "anna: \(folder.path) is not an analytics module: it has no index.js (a module's index.js exports "
                    + "require('anna').configured({ task: __dirname + '/task' })); use --tasks \(folder.path) to run a task folder",
                exitCode: ExitCodes.noInput)
        }
        return .init(
            moduleURL: folder, debug: debug, additionalAllowedRoots: allowedRoots, executionTimeLimit: .seconds(timeLimit), console: console)
    }

    /// The task folder: the `--tasks` folder, or `task` in the `--module` folder (the layout
    /// of analytics modules); fails with 66 when it is missing or not a folder, or when a
    /// `--tasks` folder is a module folder.
    func taskFolder() throws -> URL {
        let tasks = isTaskFolder ? folder : folder.appendingPathComponent("task")
        try Self.requireTaskFolder(tasks.path)
        let files = LocalFileAccess()
        if isTaskFolder, let index = ["index.js", "index.ts"].first(where: { files.isFile(atPath: tasks.path + "/" + $0) }),
            files.isDirectory(atPath: tasks.path + "/task")
        {
            throw CommandFailure(
                "anna: \(tasks.path) is an analytics module (\(index) and task/), not a task folder; "
                    + "use --module \(tasks.path), or --tasks \(tasks.path)/task",
                exitCode: ExitCodes.noInput)
        }
        return tasks
    }

    /// Fails with 66 when `path` is missing or not a folder.
    static func requireTaskFolder(_ path: String) throws {
        let files = LocalFileAccess()
        guard files.fileExists(atPath: path) else {
            throw CommandFailure("anna: no such task folder: \(path)", exitCode: ExitCodes.noInput)
        }
        guard files.isDirectory(atPath: path) else {
            throw CommandFailure("anna: not a folder: \(path)", exitCode: ExitCodes.noInput)
        }
    }

    /// Loads the engine; fails with 66 naming the module when it cannot be loaded, with a
    /// hint when the cause is a common mistake (a file outside the readable folders, a task
    /// folder given as a module). What it produces is the value of each call.
    func loadEngine(console: Console, configure: (inout AnalyticsEngine.Configuration) -> Void = { _ in }) throws -> AnalyticsEngine {
        var configuration = try engineConfiguration(console: console)
        configure(&configuration)
        do {
            return try AnalyticsEngine(configuration: configuration)
        } catch let error as AnalyticsError {
            throw CommandFailure(lines: ["anna: \(error)"] + (hint(for: error).map { ["anna: \($0)"] } ?? []), exitCode: ExitCodes.noInput)
        } catch {
            // The runtime itself did not start (its bootstrap ran past --time-limit, say).
            throw CommandFailure("anna: cannot load analytics module \(folder.path): \(error)", exitCode: ExitCodes.noInput)
        }
    }

    /// What to do about `error`, when it is a mistake with a known remedy.
    func hint(for error: AnalyticsError) -> String? {
        guard let exception = error.exception else { return nil }
        if let hint = Self.accessHint(for: exception) { return hint }
        // Outside task-file loads the global `match` is absent (no core loaded yet) or
        // `undefined` (the core loaded): a call fails with either error.
        let callsMatch =
            (exception.name == "ReferenceError" && exception.message.contains("match"))
            || (exception.name == "TypeError" && exception.message.hasPrefix("match is not a function"))
        if !isTaskFolder, callsMatch {
            return "\(folder.path) looks like a task folder (its index.js calls match()); use --tasks \(folder.path)"
        }
        return nil
    }

    /// `add --allow-read DIR …` when `exception` is the runtime refusing a file outside the
    /// readable folders (its message names the path).
    static func accessHint(for exception: JavaScriptException) -> String? {
        guard exception.thrownValue["code"]?.stringValue == "ERR_ACCESS_DENIED" || exception.message.contains("Access denied: module")
        else { return nil }
        var folder = "DIR"
        if let start = exception.message.range(of: "resolves to '"),
            let end = exception.message.range(of: "', outside", range: start.upperBound..<exception.message.endIndex)
        {
            let path = String(exception.message[start.upperBound..<end.lowerBound])
            folder = LocalFileAccess().isDirectory(atPath: path) ? path : ModulePath.directory(of: path)
        }
        return "modules may read only below the module's folder and the core; add --allow-read \(folder) to let them read there"
    }
}
