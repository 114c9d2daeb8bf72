import Anna
import ArgumentParser
import CoreJS

/// Feeds an event stream through an engine, reporting problems on standard error as
/// `FILE:LINE: message` and going on after core errors.
///
/// Operations go to the engine in batches (``AnalyticsEngine/apply(_:onError:)``, many per
/// call into JavaScript). A batch is sent when it is full, before a snapshot or a malformed
/// line is handled, at the end, and whenever the next line has not arrived yet: a live stream
/// on standard input is answered line by line as it comes.
struct StreamReplay {
    /// What happened during a replay.
    struct Summary {
        var lines = 0
        var operations = 0
        var results = 0
        var skippedLines = 0
        /// The core's errors by kind (the replay goes on after each).
        var errors = CoreErrorTally()
        /// Whether the `--allow-read` hint was shown (once is enough).
        var showedAccessHint = false
        /// Whether a malformed line stopped the replay.
        var stopped = false
    }

    /// Operations read but not sent yet, with the line each came from.
    private struct Batch {
        var operations: [TimedOperation] = []
        var lines: [Int] = []
    }

    let engine: AnalyticsEngine
    let reader: LineReader
    let keepGoing: Bool
    /// The progress line; every message to standard error goes through it.
    let progress: ProgressReporter
    let resultCount: () -> Int

    /// Loads the module (its configuration changed by `configure`), then replays the whole
    /// stream through it; `onResult` sees each result as it comes.
    static func replay(
        _ stream: StreamOptions, through module: ModuleOptions, configure: (inout AnalyticsEngine.Configuration) -> Void = { _ in },
        onResult: @escaping (AnalyticsResult) -> Void
    ) throws -> (engine: AnalyticsEngine, summary: Summary) {
        let progress = ProgressReporter()
        let console = try stream.makeConsole(standardError: progress)
        var count = 0
        let engine = try module.loadEngine(console: console, configure: configure) { result in
            count += 1
            onResult(result)
        }
        let reader = try stream.openStream()
        let replay = StreamReplay(engine: engine, reader: reader, keepGoing: stream.keepGoing, progress: progress) { count }
        return (engine, replay.run())
    }

    /// Runs the whole stream.
    func run() -> Summary {
        var summary = Summary()
        var batch = Batch()
        defer { progress.clear() }
        while let line = reader.nextLine() {
            summary.lines += 1
            guard handle(line, batch: &batch, summary: &summary) else { break }
            if batch.operations.count >= AnalyticsEngine.maximumBatchSize || !reader.hasLineReady { send(&batch, summary: &summary) }
        }
        send(&batch, summary: &summary)
        summary.results = resultCount()
        return summary
    }

    /// Queues the line's operation or runs its snapshot; `false` when a malformed line stops the replay.
    private func handle(_ line: String, batch: inout Batch, summary: inout Summary) -> Bool {
        let record: EventStream.Record
        do {
            guard let parsed = try EventStream.parse(line: line) else { return true }
            record = parsed
        } catch {
            send(&batch, summary: &summary)  // so that messages stay in line order
            writeMessage(about: summary.lines, "\(error)")
            if keepGoing {
                summary.skippedLines += 1
                return true
            }
            summary.stopped = true
            return false
        }
        switch record.command {
        case let .operation(operation):
            summary.operations += 1
            batch.operations.append(TimedOperation(operation, time: record.time))
            batch.lines.append(summary.lines)
        case .snapshot:
            send(&batch, summary: &summary)
            do {
                progress.writeLine(try engine.snapshot(format: .markup))
            } catch {
                report(error, line: summary.lines, summary: &summary)
            }
        case .version:
            break
        }
        return true
    }

    /// Sends the batch to the engine, reporting each failure with its line, and empties it.
    private func send(_ batch: inout Batch, summary: inout Summary) {
        guard !batch.operations.isEmpty else { return }
        let lines = batch.lines
        engine.apply(batch.operations) { position, error in
            report(error, line: lines[position], summary: &summary)
        }
        batch.operations.removeAll(keepingCapacity: true)
        batch.lines.removeAll(keepingCapacity: true)
        progress.update(lines: summary.lines, events: summary.operations, results: resultCount())
    }

    /// Prints `FILE:LINE: error: …` (once per failed task) and counts the errors.
    private func report(_ error: any Error, line: Int, summary: inout Summary) {
        if let error = error as? AnalyticsError, !error.isFailure {
            writeMessage(about: line, "\(error)")  // "warning: …"; --strict ignores it
            return
        }
        if case let AnalyticsError.tasksFailed(failures) = error {
            for failure in failures { writeMessage(about: line, "error: \(failure)") }
        } else {
            writeMessage(about: line, "error: \(error)")
        }
        summary.errors.count(error)
        if !summary.showedAccessHint, let exception = (error as? AnalyticsError)?.exception,
            let hint = ModuleOptions.accessHint(for: exception)
        {
            progress.writeLine("anna: \(hint)")
            summary.showedAccessHint = true
        }
    }

    /// Prints `FILE:LINE: message` on one line, with what the message quotes from the stream
    /// (names, paths, thrown messages) made visible: no control or invisible character raw.
    private func writeMessage(about line: Int, _ message: String) {
        progress.writeLine("\(reader.name):\(line): \(VisibleText(message, limit: .max))")
    }

    /// Prints what was skipped, then `notes` (each as `anna: note`), then what failed, if
    /// anything (last, as the bottom line); turns a stop into exit 65 and, with `strict`, a core error into exit 1.
    /// `strict`: errors fail the run (exit 1); `nil` for a command that fails on errors anyway
    /// and has no `--strict` (`check --events`).
    static func finish(_ summary: Summary, strict: Bool?, notes: [String] = []) throws {
        if summary.skippedLines > 0 {
            printError(
                "anna: \(summary.lines) lines, \(summary.operations) operations, \(summary.results) results, "
                    + "\(summary.skippedLines) malformed \(summary.skippedLines == 1 ? "line" : "lines") skipped")
        }
        for note in notes { printError("anna: \(note)") }
        if summary.errors.total > 0 {
            switch strict {
            case true?: printError("anna: \(summary.errors.description); failing the run (--strict)")
            case false?: printError("anna: \(summary.errors.description); --strict makes them fail the run")
            case nil: printError("anna: \(summary.errors.description)")
            }
        }
        if summary.stopped { throw ExitCodes.malformedStream }
        if strict == true && summary.errors.total > 0 { throw ExitCodes.failure }
    }
}
