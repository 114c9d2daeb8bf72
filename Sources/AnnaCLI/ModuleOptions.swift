import Anna
import ArgumentParser
import CoreJS
import Foundation

/// Which analytics code to run: a whole module, or a task folder on the bundled core.
struct ModuleOptions: ParsableArguments {
    @Option(name: .customLong("module"), help: ArgumentHelp("An analytics module folder (its index.js exports the constructor); any core that follows the module protocol.", valueName: "dir"))
    var moduleFolder: String?

    @Option(name: .customLong("tasks"), help: ArgumentHelp("A task folder, run with the bundled core.", valueName: "dir"))
    var taskFolder: String?

    @Flag(help: "Debug mode: task files are re-required on every load.")
    var debug = false

    @Option(name: .customLong("time-limit"), help: ArgumentHelp("Seconds one call into JavaScript may run.", valueName: "seconds"))
    var timeLimit: Double = 2

    func validate() throws {
        guard (moduleFolder == nil) != (taskFolder == nil) else {
            throw ValidationError("Give exactly one of --module DIR and --tasks DIR.")
        }
        guard timeLimit > 0 else { throw ValidationError("--time-limit must be positive.") }
    }

    /// The folder given, made absolute.
    var folder: URL {
        URL(fileURLWithPath: moduleFolder ?? taskFolder ?? ".").standardizedFileURL
    }

    /// Whether `--tasks` was given.
    var isTaskFolder: Bool { taskFolder != nil }

    /// The engine configuration; exits with 66 when the folder is missing.
    func engineConfiguration(console: Console) throws -> AnalyticsEngine.Configuration {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            printError("anna: no such \(isTaskFolder ? "task folder" : "module"): \(folder.path)")
            throw ExitCodes.noInput
        }
        if isTaskFolder {
            guard isDirectory.boolValue else {
                printError("anna: not a folder: \(folder.path)")
                throw ExitCodes.noInput
            }
            return .init(
                moduleURL: TaskFolderModule.entryURL(in: folder), debug: debug, executionTimeLimit: timeLimit,
                fileAccess: TaskFolderModule(taskFolder: folder.path), console: console)
        }
        return .init(moduleURL: folder, debug: debug, executionTimeLimit: timeLimit, console: console)
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
