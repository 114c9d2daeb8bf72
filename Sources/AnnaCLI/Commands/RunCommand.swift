import Anna
import ArgumentParser
import CoreJS
import Foundation

/// `anna run`: prints each result as one line of compact JSON, in order, as it comes.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Replay an event stream and print every result as a line of JSON.",
        discussion: """
            Standard output carries results only; console output of task scripts
            goes to standard error (or --console FILE). Errors in the stream or the
            core are reported on standard error as FILE:LINE: message and counted in
            a summary line; --strict makes them fail the run (exit 1).

            --coverage prints which task files loaded and how often each task ran
            (a table on standard error); --coverage=FILE writes it as JSON to FILE.
            Without it, a run in which no task produced a result, or some tasks
            never ran, says so in one line. A task file that exists but was never
            loaded is always named, beside the namespaces that had no task file
            (a renamed class). --require-coverage exits 1 when a task file was
            never loaded or a task never ran, listing each with FILE:LINE.

            --watch reloads a task file when it changes, between lines of a live
            stream, and says so on standard error: reloaded task/index.js.

            Examples:
              anna run --events session.ndjson --module analytics
              anna run --events session.ndjson --tasks analytics/task --meta
              anna run --events session.ndjson --module analytics --strict --coverage
              anna run --events session.ndjson --module analytics --coverage=coverage.json
              anna run --events session.ndjson --module analytics --require-coverage
              anna run --events session.ndjson --module analytics.bundle --allow-read .
              tail -f session.ndjson | anna run --events - --module analytics --watch
            """)

    @OptionGroup var stream: StreamOptions
    @OptionGroup var module: ModuleOptions
    @OptionGroup(title: "Outbox") var outbox: OutboxRunOptions
    @OptionGroup var coverageRequirement: CoverageRequirement

    @Flag(help: "Print {\"result\":…,\"task\":…,\"path\":…,\"event\":…,\"time\":ms} for each result (time: its event's).")
    var meta = false

    @Flag(help: "After the run, show which task files loaded and how often each task ran (--coverage=FILE: JSON to FILE).")
    var coverage = false

    @Option(name: .customLong("coverage-file"), help: ArgumentHelp(visibility: .private))
    var coverageFile: String?

    @Flag(
        help: "Reload a task file when it changes (checked between lines, at most every 0.2 s), saying 'reloaded FILE'; for live streams.")
    var watch = false

    func run() throws {
        try refuseOutputs(over: stream.eventsPath, [("--coverage", coverageFile)])
        let writer = ResultWriter(output: .standardOutput(), meta: meta)
        let outboxRun = try outbox.start()
        let (engine, summary) = try StreamReplay.replay(
            stream, through: module, watchTasks: watch, writingTo: writer, alsoTo: outboxRun.map { run in run.append })
        // The outbox's failure is said here, in its place, and decides the exit status after
        // the stream's summary and coverage notes were printed as in any run.
        var outboxFailure: (any Error)?
        do {
            try outboxRun?.finish()
        } catch let failure as CommandFailure {
            outboxFailure = failure.saidNow()
        } catch {
            outboxFailure = error
        }
        var notes: [String] = []
        if coverage || coverageFile != nil {
            try CoverageOutput.write(engine: engine, to: coverageFile)
        } else if !coverageRequirement.isRequired, let note = CoverageOutput.unusedTasksNote(engine: engine, summary: summary) {
            notes.append(note)
        }
        let covered = coverageRequirement.report(
            CoverageOutput.read(from: engine, reportingFailure: false), stopped: summary.stopped)
        do { try StreamReplay.finish(summary, strict: stream.strict, notes: notes) } catch {
            throw outboxFailure ?? error
        }
        if let outboxFailure { throw outboxFailure }
        if !covered { throw CommandFailure(exitCode: ExitCodes.failure) }
    }
}
