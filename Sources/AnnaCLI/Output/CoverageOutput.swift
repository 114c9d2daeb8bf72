import Anna
import ArgumentParser
import CoreJS
import Foundation

/// `--coverage`, `anna check --events`, and the note about tasks that never ran.
enum CoverageOutput {
    /// The engine's coverage, or `nil` after saying why there is none (a core without
    /// `coverage()`, such as a hand-written one, is not an error of the run).
    static func read(from engine: AnalyticsEngine, reportingFailure: Bool) -> Coverage? {
        do {
            return try engine.coverage()
        } catch {
            if reportingFailure { printError("anna: no coverage: \(error)") }
            return nil
        }
    }

    /// Writes the coverage as JSON to `file`, or as a table to standard error; exits with
    /// 73 when the file cannot be written.
    static func write(engine: AnalyticsEngine, to file: String?) throws {
        guard let coverage = read(from: engine, reportingFailure: true) else { return }
        guard let file else {
            printError(coverage.report())
            return
        }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try (encoder.encode(coverage) + Data("\n".utf8)).write(to: URL(fileURLWithPath: file))
        } catch {
            throw CommandFailure("anna: cannot write the coverage to \(file): \(error.localizedDescription)", exitCode: ExitCodes.cannotCreate)
        }
    }

    /// One line when the run produced no result although operations ran, or when some
    /// loaded tasks never ran, suggesting `--coverage`; `nil` when neither happened.
    static func unusedTasksNote(engine: AnalyticsEngine, summary: StreamReplay.Summary) -> String? {
        if summary.results == 0, summary.operations > 0 {
            return
                "no task produced a result (\(Plural.count(summary.operations, "operation")) replayed); --coverage shows which tasks loaded and ran"
        }
        guard let coverage = read(from: engine, reportingFailure: false) else { return nil }
        let silent = coverage.tasksNeverFired
        guard let first = silent.first else { return nil }
        let location = first.location.map { " at \($0)" } ?? ""
        let others = silent.count > 1 ? " and \(silent.count - 1) more" : ""
        return
            "\(silent.count) of \(Plural.count(coverage.tasks.count, "task")) never ran ('\(first.task)'\(location)\(others)); --coverage lists them"
    }

    /// `anna check --events`: replays the stream through the module, then prints the
    /// coverage on standard output; returns how many core errors the replay reported, and
    /// the coverage (`nil` after saying why there is none).
    static func check(module: ModuleOptions, events: String) throws -> (coreErrors: Int, coverage: Coverage?) {
        let stream = try StreamOptions.parse(["--events", events])
        let (engine, summary) = try StreamReplay.replay(stream, through: module) { _ in }
        let coverage = read(from: engine, reportingFailure: true)
        if let coverage { printOutput(coverage.report()) }
        try StreamReplay.finish(summary, strict: nil)
        return (summary.errors.total, coverage)
    }
}
