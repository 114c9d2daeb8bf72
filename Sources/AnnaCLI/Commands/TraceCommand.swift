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
            A trace file holds one trace or an array of them:
              {"name": "checkout", "items": [{"action": "viewed"}, …],
               "enforceOrder": true, "allowDuplicates": false}
            Exit 0 when every trace passes, 1 when one fails.

            Examples:
              anna trace --events session.ndjson --module analytics --expect session.trace.json
              anna trace --events session.ndjson --tasks analytics/task --expect t.json --junit junit.xml
            """)

    @OptionGroup var stream: StreamOptions
    @OptionGroup var module: ModuleOptions
    @OptionGroup var coverageRequirement: CoverageRequirement

    @Option(help: ArgumentHelp("The trace file with the expected results.", valueName: "file"))
    var expect: String

    @Option(help: ArgumentHelp("Also write a JUnit XML report here.", valueName: "file"))
    var junit: String?

    func run() throws {
        guard let text = try? String(contentsOfFile: expect, encoding: .utf8) else {
            printError("anna: no such trace file: \(expect)")
            throw ExitCodes.noInput
        }
        let traces: [Trace]
        do { traces = try Trace.load(text, file: expect) } catch {
            printError("anna: \(error)")
            throw ExitCodes.malformedStream
        }
        var results: [JSONValue] = []
        let (engine, summary) = try StreamReplay.replay(stream, through: module) { results.append($0.value) }
        let report = TraceReport(traces: traces, results: results)
        printOutput(report.text)
        if let junit {
            do {
                try report.junitXML(suiteName: expect).write(toFile: junit, atomically: true, encoding: .utf8)
            } catch {
                printError("anna: cannot write \(junit): \(error.localizedDescription)")
                throw ExitCodes.noInput
            }
        }
        let covered = coverageRequirement.report(
            CoverageOutput.read(from: engine, reportingFailure: false), stopped: summary.stopped)
        try StreamReplay.finish(summary, strict: stream.strict)
        if !report.passed || !covered { throw ExitCodes.failure }
    }
}
