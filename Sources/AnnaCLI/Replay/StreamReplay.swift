import Anna
import ArgumentParser
import CoreJS

/// Feeds an event stream through an engine, reporting problems on standard error as
/// `FILE:LINE: message` and going on after core errors.
///
/// Lines are decoded straight into the engine's encoded operations (``EventStreamBatch``),
/// which go to the engine in batches (many per call into JavaScript). A batch is sent when it
/// is full, before a snapshot or a malformed line is handled, at the end, and whenever the
/// next line has not arrived yet: a live stream on standard input is answered line by line
/// as it comes. After each batch, and before each message, ``flushResults`` lets the results
/// printed so far leave, so they keep their order with the messages.
///
/// To replay one session into a file (as `anna run` does into standard output):
///
/// ```swift
/// let writer = ResultWriter(output: OutputBuffer(descriptor: fd, name: path), meta: false)
/// let engine = try module.loadEngine(console: console)
/// let summary = StreamReplay.run(reader, through: engine, writingTo: writer, keepGoing: false, progress: progress)
/// ```
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
        /// Whether the replay stopped before the end (a malformed line, a line the reader could
        /// not take, or ``shouldStop``).
        var stopped = false
        /// Why, when no option could have gone on (a newer stream version).
        var stopReason: String?
        /// The first ``keptErrorLines`` error lines, as printed (`anna trace` puts them in
        /// its JUnit report).
        var errorLines: [String] = []
        /// How many error lines were printed (``errorLines`` keeps the first ones).
        var errorLineCount = 0
    }

    /// How many error lines a ``Summary`` keeps.
    static let keptErrorLines = 100

    /// Operations read but not sent yet, with the line each came from.
    private struct Batch {
        var operations = EventStreamBatch()
        var lines: [Int] = []
    }

    /// Where the results of each batch go.
    enum Results {
        /// Decoded, each to the closure.
        case decoded((AnalyticsResult) -> Void)
        /// As the engine wrote them, into the writer, and to `also` after (an outbox).
        case texts(ResultWriter, also: ((ResultTexts) -> Void)?)
    }

    let engine: AnalyticsEngine
    /// Where each batch's results go (its errors are reported in between, in order).
    let results: Results
    let reader: LineReader
    let keepGoing: Bool
    /// The progress line; every message to standard error goes through it.
    let progress: ProgressReporter
    let resultCount: () -> Int
    /// Writes the results printed so far (after each batch, before each message).
    var flushResults: () -> Void = {}
    /// Asked every ``stopCheckLines`` lines, and at the end, whether to stop (a deadline).
    var shouldStop: (() -> Bool)?
    static let stopCheckLines = 256

    /// Loads the module (its configuration changed by `configure`), then replays the whole
    /// stream through it; `onResult` sees each result, decoded, as it comes.
    static func replay(
        _ stream: StreamOptions, through module: ModuleOptions, configure: (inout AnalyticsEngine.Configuration) -> Void = { _ in },
        onResult: @escaping (AnalyticsResult) -> Void
    ) throws -> (engine: AnalyticsEngine, summary: Summary) {
        let progress = ProgressReporter()
        let console = try stream.makeConsole(standardError: progress)
        var count = 0
        let engine = try module.loadEngine(console: console, configure: configure)
        let reader = try stream.openStream()
        let results = Results.decoded { result in
            count += 1
            onResult(result)
        }
        let replay = StreamReplay(engine: engine, results: results, reader: reader, keepGoing: stream.keepGoing, progress: progress) { count }
        return (engine, replay.run())
    }

    /// Loads the module (its configuration changed by `configure`), then replays the whole
    /// stream through it, printing each result into `writer` as the engine wrote it, and
    /// handing the results to `alsoTo` (an outbox) after. With `watchTasks`, a changed task
    /// file is reloaded between lines and `reloaded task/index.js` said on standard error.
    static func replay(
        _ stream: StreamOptions, through module: ModuleOptions, configure: (inout AnalyticsEngine.Configuration) -> Void = { _ in },
        watchTasks: Bool = false, writingTo writer: ResultWriter, alsoTo also: ((ResultTexts) -> Void)? = nil
    ) throws -> (engine: AnalyticsEngine, summary: Summary) {
        let progress = ProgressReporter()
        let configure = { (configuration: inout AnalyticsEngine.Configuration) in
            configure(&configuration)
            guard watchTasks else { return }
            configuration.watchTasks = true
            // Paths are said relative to the module folder, or to the task folder's parent.
            let root = module.isTaskFolder ? module.folder.deletingLastPathComponent() : module.folder
            configuration.fileAccess = TaskReloadReporter(base: configuration.fileAccess, root: root.path, output: progress)
        }
        let console = try stream.makeConsole(standardError: progress)
        let engine = try module.loadEngine(console: console, configure: configure)
        let reader = try stream.openStream()
        return (engine, run(reader, through: engine, writingTo: writer, alsoTo: also, keepGoing: stream.keepGoing, progress: progress))
    }

    /// Replays one stream through `engine`, writing its results into `writer` as the engine
    /// wrote them (and handing them to `alsoTo` after), with messages through `progress`, and
    /// flushes `writer` at the end. The reusable core of `anna run`: one session, one output.
    /// `shouldStop` (a deadline) can end it early.
    static func run(
        _ reader: LineReader, through engine: AnalyticsEngine, writingTo writer: ResultWriter, alsoTo also: ((ResultTexts) -> Void)? = nil,
        keepGoing: Bool, progress: ProgressReporter, shouldStop: (() -> Bool)? = nil
    ) -> Summary {
        let start = writer.count
        var replay = StreamReplay(engine: engine, results: .texts(writer, also: also), reader: reader, keepGoing: keepGoing, progress: progress) {
            writer.count - start
        }
        replay.flushResults = writer.flush
        replay.shouldStop = shouldStop
        return replay.run()
    }

    /// Runs the whole stream.
    func run() -> Summary {
        var summary = Summary()
        var batch = Batch()
        defer {
            flushResults()
            progress.clear()
        }
        while let goesOn = reader.withNextLine({ line in
            summary.lines += 1
            return handle(line, batch: &batch, summary: &summary)
        }) {
            guard goesOn else { break }
            if batch.operations.count >= AnalyticsEngine.maximumCallSize || !reader.hasLineReady { send(&batch, summary: &summary) }
            if summary.lines % Self.stopCheckLines == 0, shouldStop?() == true {
                summary.stopped = true
                break
            }
        }
        send(&batch, summary: &summary)
        if let failure = reader.failure {  // a line past the maximum line length, or a read error
            writeMessage(about: failure.line ?? summary.lines + 1, "\(failure.message); the rest of \(reader.name) was not read")
            summary.stopped = true
        }
        if !summary.stopped, shouldStop?() == true { summary.stopped = true }
        summary.results = resultCount()
        return summary
    }

    /// Queues the line's operation or runs its snapshot; `false` when a malformed line stops the replay.
    private func handle(_ line: UnsafeRawBufferPointer, batch: inout Batch, summary: inout Summary) -> Bool {
        let entry: EventStreamBatch.Entry
        do {
            entry = try batch.operations.add(line: line)
        } catch {
            send(&batch, summary: &summary)  // so that messages stay in line order
            writeMessage(about: summary.lines, "\(error)")
            let endsStream = (error as? EventStream.FormatError)?.endsStream ?? false
            if keepGoing, !endsStream {
                summary.skippedLines += 1
                return true
            }
            summary.stopped = true
            if endsStream { summary.stopReason = "\(error)" }
            return false
        }
        switch entry {
        case .operation:
            summary.operations += 1
            batch.lines.append(summary.lines)
        case .snapshot:
            send(&batch, summary: &summary)
            do {
                let snapshot = try engine.snapshot(format: .markup)
                flushResults()
                progress.writeLine(snapshot)
            } catch {
                report(error, line: summary.lines, summary: &summary)
            }
        case .version, .nothing:
            break
        }
        return true
    }

    /// Sends the batch to the engine, reporting each failure with its line, and empties it.
    private func send(_ batch: inout Batch, summary: inout Summary) {
        guard batch.operations.count > 0 else { return }
        let lines = batch.lines
        func failed(_ position: Int, _ error: AnalyticsError) {
            report(error, line: lines[position], summary: &summary)
        }
        let output = engine.apply(&batch.operations)
        switch results {
        case let .decoded(onResult):
            output.forEach(result: onResult, error: failed)
        case let .texts(writer, also?):
            output.forEachText(
                { texts in
                    writer.write(texts)
                    also(texts)
                }, error: failed)
        case let .texts(writer, nil):
            output.forEachText(writer.write, error: failed)
        }
        batch.lines.removeAll(keepingCapacity: true)
        flushResults()
        progress.update(lines: summary.lines, events: summary.operations, results: resultCount())
    }

    /// Prints `FILE:LINE: error: …` (once per failed task) and counts the errors.
    private func report(_ error: any Error, line: Int, summary: inout Summary) {
        if let error = error as? AnalyticsError, !error.isFailure {
            writeMessage(about: line, "\(error)")  // "warning: …"; --strict ignores it
            return
        }
        let messages: [String]
        if case let AnalyticsError.tasksFailed(failures) = error {
            messages = failures.map { "error: \($0)" }
        } else {
            messages = ["error: \(error)"]
        }
        for message in messages {
            let text = writeMessage(about: line, message)
            summary.errorLineCount += 1
            if summary.errorLines.count < Self.keptErrorLines { summary.errorLines.append(text) }
        }
        summary.errors.count(error)
        if !summary.showedAccessHint, let exception = (error as? AnalyticsError)?.exception,
            let hint = ModuleOptions.accessHint(for: exception)
        {
            flushResults()
            progress.writeLine("anna: \(hint)")
            summary.showedAccessHint = true
        }
    }

    /// Prints `FILE:LINE: message` on one line, with what the message quotes from the stream
    /// (names, paths, thrown messages) made visible: no control or invisible character raw.
    /// Returns the line written.
    @discardableResult
    private func writeMessage(about line: Int, _ message: String) -> String {
        flushResults()
        let text = "\(reader.name):\(line): \(VisibleText(message, limit: .max))"
        progress.writeLine(text)
        return text
    }

    /// Prints what was skipped, then `notes` (each as `anna: note`), then what failed, if
    /// anything (last, as the bottom line); turns a stop into exit 65 and, with `strict`, a core error into exit 1
    /// (a ``CommandFailure`` that says nothing more).
    /// `strict`: errors fail the run (exit 1); `nil` for a command that fails on errors anyway
    /// and has no `--strict` (`check --events`).
    static func finish(_ summary: Summary, strict: Bool?, notes: [String] = []) throws {
        if summary.skippedLines > 0 {
            printError(
                "anna: \(Plural.count(summary.lines, "line")), \(Plural.count(summary.operations, "operation")), "
                    + "\(Plural.count(summary.results, "result")), "
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
        if summary.stopped { throw CommandFailure(exitCode: ExitCodes.malformedStream) }
        if strict == true && summary.errors.total > 0 { throw CommandFailure(exitCode: ExitCodes.failure) }
    }
}
