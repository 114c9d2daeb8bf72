import Anna
import CoreJS
import Foundation

/// Loads every task file of a folder on its own, collecting its patterns and problems.
struct TaskFileChecker {
    /// What one file holds.
    struct FileReport {
        var patterns: [(line: Int?, pattern: String)] = []
        var problems: [(line: Int?, message: String)] = []
    }

    let taskFolder: String
    var timeLimit: Double = 2

    /// Every `.js` file below the folder (outside `node_modules`), as paths relative to the
    /// folder, sorted.
    func taskFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: taskFolder) else { return [] }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.split(separator: "/").contains("node_modules") { continue }
            if relative.hasSuffix(".js") { files.append(relative) }
        }
        return files.sorted()
    }

    /// Checks one file in a fresh runtime with the bundled core's `checkTaskFile`: it runs the
    /// file as a load would (a syntax error is reported with its line), validating each
    /// `match` call as a load does, but collects every problem instead of stopping.
    func check(_ file: String) -> FileReport {
        var report = FileReport()
        // Modules are known by their real paths; errors and stacks name those.
        let file = LocalFileAccess().canonicalPath(file)
        do {
            let runtime = try RuntimeConfiguration(executionTimeLimit: timeLimit, console: Console(output: MemoryOutputSink()))
                .makeRuntime(confinedTo: taskFolder)
            let checkTaskFile = try runtime.require("anna").property("checkTaskFile")
            let found = try checkTaskFile.call([runtime.context.makeValue(.string(file))]).toJSON()
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
