import Anna
import CoreJS
import Foundation

/// Loads an analytics module's entry, then every task file of its task folder on its own,
/// collecting patterns and problems, with the runtime `anna run` makes for the module (the
/// same readable folders, `node_modules` and `--allow-read` roots).
struct TaskFileChecker {
    /// What one file holds.
    struct FileReport {
        var patterns: [(line: Int?, pattern: String)] = []
        var problems: [(line: Int?, message: String)] = []
    }

    /// How the module's runtimes are made: the configuration of `anna run`, with console
    /// output kept (loading files must not clutter the report).
    let runtime: RuntimeConfiguration
    /// The module's entry: its folder, or the file itself.
    let modulePath: String

    /// Checks the module described by `configuration`.
    init(configuration: AnalyticsEngine.Configuration) {
        var runtime = configuration.runtime
        runtime.console = Console(output: MemoryOutputSink())
        self.runtime = runtime
        modulePath = configuration.moduleURL.standardizedFileURL.path
    }

    /// The folder the module is confined to, as the engine computes it.
    var moduleFolder: String {
        ModuleEntry.folder(of: modulePath, fileAccess: runtime.fileAccess)
    }

    /// Loads the module's entry as `anna run` does; returns its task folder when it says
    /// (`configured()` of the bundled core sets `taskDirectory`), `nil` otherwise.
    /// - Throws: ``AnalyticsError`` when the entry fails to load or exports no constructor.
    func loadModule() throws -> String? {
        let constructor = try ModuleEntry.loadConstructor(at: modulePath, in: try runtime.makeRuntime(confinedTo: moduleFolder))
        do {
            let folder = try constructor.property("taskDirectory")
            return folder.isString ? folder.toString() : nil
        } catch let error as JavaScriptError {  // a getter that throws: the module is at fault
            throw AnalyticsError.moduleLoadFailed(module: modulePath, error)
        }
    }

    /// Every `.js` file below `taskFolder` (outside `node_modules`), as paths relative to it, sorted.
    static func taskFiles(in taskFolder: String) -> [String] {
        Coverage.taskFiles(under: taskFolder).map { String($0.dropFirst(taskFolder.count + 1)) }
    }

    /// Checks one file in a fresh runtime of the module with the bundled core's
    /// `checkTaskFile`: it runs the file as a load would (a syntax error is reported with its
    /// line), validating each `match` call as a load does, but collects every problem
    /// instead of stopping.
    func check(_ file: String) -> FileReport {
        var report = FileReport()
        // Modules are known by their real paths; errors and stacks name those.
        let file = LocalFileAccess().canonicalPath(file)
        do {
            let javaScript = try runtime.makeRuntime(confinedTo: moduleFolder)
            let checkTaskFile = try javaScript.require(runtime.coreURL.standardizedFileURL.path).property("checkTaskFile")
            let found = try checkTaskFile.call([javaScript.context.makeValue(.string(file))]).toJSON()
            for entry in found["patterns"]?.arrayValue ?? [] {
                report.patterns.append((entry["line"]?.numberValue.map { Int($0) }, entry["pattern"]?.stringValue ?? ""))
            }
            for entry in found["problems"]?.arrayValue ?? [] {
                report.problems.append((entry["line"]?.numberValue.map { Int($0) }, entry["message"]?.stringValue ?? ""))
            }
        } catch {
            report.problems.append((nil, "\(error)"))
        }
        return report
    }
}
