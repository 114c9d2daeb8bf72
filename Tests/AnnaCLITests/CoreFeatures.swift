import Anna
import Foundation

/// What the bundled JavaScript core can do, read from its source: the CLI's coverage, watch
/// and location tests need the core's `coverage()`, `reloadTaskFile()` and `runningTask()`,
/// and tests of older cores' messages must not break once the core locates its tasks.
enum CoreFeatures {
    /// Every `.js` file of the bundled core, concatenated.
    static let source: String = {
        let folder = BundledCore.folderURL
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".js") }.sorted()
            .compactMap { try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
    }()

    /// `manager.coverage()`.
    static let coverage = source.contains("coverage()")
    /// `manager.reloadTaskFile(path)` and `manager.taskFiles()`.
    static let reload = source.contains("reloadTaskFile(")
    /// `manager.runningTask()` and task locations in failures.
    static let locations = source.contains("runningTask(")
}

/// `line` without the parts newer cores add: the task's location after its pattern
/// (` (/abs/task/index.js:3:1)`, or ` (index.js)` from older cores), where a task threw (` (thrown at …)`), and the running
/// task a time-limit stop names (`task 'p' (…) while `); so one expectation serves both.
func withoutTaskLocations(_ line: String) -> String {
    line.replacing(#/task '([^']*)' \([^)]*\) while /#, with: "")
        .replacing(#/ \(thrown at [^)]*\)/#, with: "")
        .replacing(#/(task '[^']*') \([^)]*\)/#) { "\($0.output.1)" }
}
