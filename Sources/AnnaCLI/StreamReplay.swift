import Anna
import ArgumentParser
import CoreJS

/// Feeds an event stream through an engine, line by line, reporting problems on standard
/// error as `FILE:LINE: message` and going on after core errors.
struct StreamReplay {
    /// What happened during a replay.
    struct Summary {
        var lines = 0
        var operations = 0
        var results = 0
        var skippedLines = 0
        var coreErrors = 0
        /// Whether a malformed line stopped the replay.
        var stopped = false
    }

    let engine: AnalyticsEngine
    let reader: LineReader
    let keepGoing: Bool
    let resultCount: () -> Int

    /// Loads the module, then replays the whole stream through it; `onResult` sees each
    /// result as it comes.
    static func replay(
        _ stream: StreamOptions, through module: ModuleOptions, onResult: @escaping (AnalyticsResult) -> Void
    ) throws -> (engine: AnalyticsEngine, summary: Summary) {
        let console = try stream.makeConsole()
        var count = 0
        let engine = try module.loadEngine(console: console) { result in
            count += 1
            onResult(result)
        }
        let reader = try stream.openStream()
        let summary = StreamReplay(engine: engine, reader: reader, keepGoing: stream.keepGoing) { count }.run()
        return (engine, summary)
    }

    /// Runs the whole stream.
    func run() -> Summary {
        var summary = Summary()
        let progress = ProgressReporter()
        defer { progress.finish() }
        while let line = reader.nextLine() {
            summary.lines += 1
            let record: EventStream.Record
            do {
                guard let parsed = try EventStream.parse(line: line) else { continue }
                record = parsed
            } catch {
                printError("\(reader.name):\(summary.lines): \(error)")
                if keepGoing {
                    summary.skippedLines += 1
                    continue
                }
                summary.stopped = true
                break
            }
            engine.time = record.time
            do {
                switch record.command {
                case let .operation(operation):
                    summary.operations += 1
                    try operation.apply(to: engine)
                case .snapshot:
                    printError(try engine.snapshot(format: .markup))
                case .version:
                    break
                }
            } catch let AnalyticsError.tasksFailed(failures) {
                for failure in failures { printError("\(reader.name):\(summary.lines): error: \(failure)") }
                summary.coreErrors += failures.count
            } catch {
                printError("\(reader.name):\(summary.lines): error: \(error)")
                summary.coreErrors += 1
            }
            progress.update(lines: summary.lines, events: summary.operations, results: resultCount())
        }
        summary.results = resultCount()
        return summary
    }

    /// Prints the summary line when anything was skipped or failed, and turns a stop into exit 65.
    static func finish(_ summary: Summary) throws {
        if summary.skippedLines > 0 || summary.coreErrors > 0 {
            printError("anna: \(summary.lines) lines, \(summary.operations) operations, \(summary.results) results, \(summary.skippedLines) malformed lines skipped, \(summary.coreErrors) errors")
        }
        if summary.stopped { throw ExitCodes.malformedStream }
    }
}
