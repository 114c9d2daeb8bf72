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

    @Option(name: .customLong("time-limit"), help: ArgumentHelp("Seconds one call into JavaScript may run.", valueName: "seconds"))
    var timeLimit: Double = 2

    func validate() throws {
        guard (modulePath == nil) != (tasksPath == nil) else {
            throw ValidationError("Give exactly one of --module DIR and --tasks DIR.")
        }
        guard timeLimit > 0 else { throw ValidationError("--time-limit must be positive.") }
    }

    /// The folder given, made absolute.
    var folder: URL {
        URL(fileURLWithPath: modulePath ?? tasksPath ?? ".").standardizedFileURL
    }

    /// Whether `--tasks` was given.
    var isTaskFolder: Bool { tasksPath != nil }

    /// The engine configuration; exits with 66 when the folder is missing.
    func engineConfiguration(console: Console) throws -> AnalyticsEngine.Configuration {
        if isTaskFolder {
            let tasks = try taskFolder()
            return .init(
                moduleURL: TaskFolderModule.entryURL(in: tasks), debug: debug, executionTimeLimit: timeLimit,
                fileAccess: TaskFolderModule(taskFolder: tasks.path), console: console)
        }
        guard LocalFileAccess().fileExists(atPath: folder.path) else {
            printError("anna: no such module: \(folder.path)")
            throw ExitCodes.noInput
        }
        return .init(moduleURL: folder, debug: debug, executionTimeLimit: timeLimit, console: console)
    }

    /// The task folder: the `--tasks` folder, or `task` in the `--module` folder (the layout
    /// of analytics modules); exits with 66 when it is missing or not a folder.
    func taskFolder() throws -> URL {
        let tasks = isTaskFolder ? folder : folder.appendingPathComponent("task")
        let files = LocalFileAccess()
        guard files.fileExists(atPath: tasks.path) else {
            printError("anna: no such task folder: \(tasks.path)")
            throw ExitCodes.noInput
        }
        guard files.isDirectory(atPath: tasks.path) else {
            printError("anna: not a folder: \(tasks.path)")
            throw ExitCodes.noInput
        }
        return tasks
    }

    /// Loads the engine; exits with 66 naming the module when it cannot be loaded.
    func loadEngine(console: Console, onResult: @escaping (AnalyticsResult) -> Void) throws -> AnalyticsEngine {
        let configuration = try engineConfiguration(console: console)
        do {
            return try AnalyticsEngine(configuration: configuration, onResult: onResult)
        } catch let error as AnalyticsError {
            printError("anna: \(error)")
            throw ExitCodes.noInput
        }
    }
}
