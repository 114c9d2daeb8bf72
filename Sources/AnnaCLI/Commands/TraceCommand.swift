import Anna
import ArgumentParser
import CoreJS
import Foundation

/// `anna trace`: checks the results of a stream against expected traces.
struct TraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Replay an event stream and check its results against expected traces.",
        discussion: """
            A trace file holds one trace, an array of them, or {"traces": […]}:
              {"name": "checkout", "items": [{"action": "viewed"}, …],
               "match": "exact", "enforceOrder": true, "allowDuplicates": false}
            "match": "subset" lets a result have more keys than its item (recursively).
            With --meta each result is compared as anna run --meta prints it,
            {"result": …, "task": …, "path": …, "event": …}, so that an item can name
            the task or path (with "subset", only those it names). docs/cli.md has
            the whole format. Results no trace expects are counted; --verbose lists
            them. Exit 0 when every trace passes, 1 when one fails, 64 for an unknown
            key in the trace file, 65 for a malformed one.

            Examples:
              anna trace --events session.ndjson --module analytics --expect session.trace.json
              anna trace --events session.ndjson --module analytics --expect t.json --meta --verbose
              anna trace --events session.ndjson --tasks analytics/task --expect t.json --junit junit.xml
            """)

    @OptionGroup var stream: StreamOptions
    @OptionGroup var module: ModuleOptions
    @OptionGroup var coverageRequirement: CoverageRequirement

    @Option(help: ArgumentHelp("The trace file with the expected results.", valueName: "file"))
    var expect: String

    @Option(help: ArgumentHelp("Also write a JUnit XML report here.", valueName: "file"))
    var junit: String?

    @Flag(help: "Compare items with {\"result\":…,\"task\":…,\"path\":…,\"event\":…} for each result, as anna run --meta prints it.")
    var meta = false

    @Flag(help: "List each result that no trace item matches (by default only their count).")
    var verbose = false

    func run() throws {
        try refuseOutputs(over: stream.eventsPath, [("--junit", junit)])
        let traces = try Trace.loadFile(expect)
        var results: [JSONValue] = []
        let meta = meta
        let (engine, summary) = try StreamReplay.replay(stream, through: module) { result in
            results.append(meta ? Self.metaObject(result) : result.value)
        }
        let report = TraceReport(traces: traces, results: results, runErrors: summary.errorLines, runErrorCount: summary.errorLineCount)
        printOutput(report.text(verbose: verbose))
        if let junit {
            do {
                try report.junitXML(suiteName: expect).write(toFile: junit, atomically: true, encoding: .utf8)
            } catch {
                throw CommandFailure("anna: cannot write \(junit): \(error.localizedDescription)", exitCode: ExitCodes.cannotCreate)
            }
        }
        let covered = coverageRequirement.report(
            CoverageOutput.read(from: engine, reportingFailure: false), stopped: summary.stopped)
        try StreamReplay.finish(summary, strict: stream.strict)
        if !report.passed || !covered { throw CommandFailure(exitCode: ExitCodes.failure) }
    }

    /// What `anna run --meta` prints for `result`, but the time (a trace's items name none).
    static func metaObject(_ result: AnalyticsResult) -> JSONValue {
        let text = { (value: String?) -> JSONValue in value.map { .string($0) } ?? .null }
        return [
            "result": result.value, "task": text(result.meta?.task), "path": text(result.meta?.path), "event": text(result.meta?.event),
        ]
    }
}
