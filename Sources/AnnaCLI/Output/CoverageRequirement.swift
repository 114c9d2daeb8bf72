import Anna
import ArgumentParser
import CoreJS

/// `--require-coverage`, and the lines every replay prints about task files that were never
/// loaded (``Coverage/loadWarnings``).
///
/// A command replaying a session adds the group and, after the replay, hands it the
/// engine's coverage:
///
/// ```swift
/// @OptionGroup var coverageRequirement: CoverageRequirement
/// …
/// let coverage = CoverageOutput.read(from: engine, reportingFailure: false)
/// let covered = coverageRequirement.report(coverage, stopped: summary.stopped)
/// try StreamReplay.finish(summary, strict: stream.strict)
/// if !covered { throw CommandFailure(exitCode: ExitCodes.failure) }
/// ```
struct CoverageRequirement: ParsableArguments {
    @Flag(
        name: .customLong("require-coverage"),
        help: "Exit 1 when a task file was never loaded or a task never ran, listing each with file:line (for CI).")
    var isRequired = false

    /// Prints each load warning on standard error (`anna: NoteDetail.js never loaded; …`),
    /// then, with `--require-coverage`, each gap as `FILE:LINE: …` and a summary line.
    /// Returns `false` when `--require-coverage` is given and the coverage has a gap, or
    /// there is no coverage to judge (a core without `coverage()`). Prints nothing after a
    /// replay that `stopped` on a malformed line: it exits 65, and the files after the
    /// stop were never given a chance to load.
    func report(_ coverage: Coverage?, stopped: Bool = false) -> Bool {
        guard !stopped else { return true }
        for warning in coverage?.loadWarnings ?? [] { printError("anna: \(warning)") }
        guard isRequired else { return true }
        guard let coverage else {
            printError("anna: --require-coverage: the core reports no coverage, so none can be required; failing the run")
            return false
        }
        let gaps = Self.gaps(in: coverage)
        guard !gaps.lines.isEmpty else { return true }
        for line in gaps.lines { printError(line) }
        var counts: [String] = []
        if gaps.files > 0 { counts.append("\(Plural.count(gaps.files, "task file")) never loaded") }
        if gaps.tasks > 0 { counts.append("\(Plural.count(gaps.tasks, "task")) never ran") }
        printError("anna: --require-coverage: \(counts.joined(separator: ", ")); failing the run")
        return false
    }

    /// One `FILE:LINE: …` line per task file that never loaded or failed to load, then per
    /// task that never ran, with how many of each.
    static func gaps(in coverage: Coverage) -> (lines: [String], files: Int, tasks: Int) {
        var lines: [String] = []
        var files = 0
        for file in coverage.files {
            switch file.status {
            case .neverLoaded:
                lines.append("\(file.file):1: task file never loaded (no node's namespace asked for it)")
            case .failed:
                lines.append("\(file.file):1: task file failed to load" + (file.error.map { ": \($0)" } ?? ""))
            case .loaded, .missing:
                continue
            }
            files += 1
        }
        let silent = coverage.tasksNeverFired
        for task in silent {
            let location = task.location?.description ?? coverage.taskFolder ?? "anna"
            lines.append("\(location): task '\(task.task)' never ran")
        }
        return (lines, files, silent.count)
    }
}
