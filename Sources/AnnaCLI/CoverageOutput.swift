import Anna
import Foundation

/// `--coverage` and the note about tasks that never ran.
enum CoverageOutput {
    /// Writes the coverage as JSON to `file`, or as a table to standard error.
    static func write(engine: AnalyticsEngine, to file: String?) throws {
        printError("anna: coverage is not available yet")
    }

    /// One line when the run produced no result although operations ran, suggesting `--coverage`.
    static func unusedTasksNote(engine: AnalyticsEngine, summary: StreamReplay.Summary) -> String? {
        guard summary.results == 0, summary.operations > 0 else { return nil }
        return "no task produced a result (\(summary.operations) operations replayed); --coverage shows which tasks loaded and ran"
    }

    /// Sets `watchTasks` in `configuration`.
    static func setWatch(_ watch: Bool, in configuration: inout AnalyticsEngine.Configuration) {}
}

extension CoverageOutput {
    /// `anna check --events`: replays the stream, prints the coverage on standard output.
    static func check(module: ModuleOptions, events: String) throws {
        printError("anna: coverage is not available yet")
    }
}
