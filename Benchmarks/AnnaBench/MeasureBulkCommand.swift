import ArgumentParser
import Foundation

/// `anna-bench measure-bulk KIND …`: one W6 measurement in this process, printed as one
/// JSON line of raw figures (W6 runs each in a child process, like ``MeasureCommand``).
///
/// ```
/// .build/release/anna-bench measure-bulk engine-cost --count 200
/// ```
struct MeasureBulkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure-bulk",
        abstract: "Run one W6 measurement (bulk replay) in this process and print its raw figures.")

    /// What to measure.
    enum Kind: String, CaseIterable, ExpressibleByArgument {
        case engineCost = "engine-cost"
    }

    @Argument(help: "engine-cost (a fresh engine per session, and a reset).")
    var kind: Kind

    @Option(help: "Engine cost: engines (and resets) timed (default 200).")
    var count = 200

    @Option(help: "Engine cost: untimed ones first (default 20).")
    var warmup = 20

    func validate() throws {
        guard count > 0, warmup >= 0 else { throw ValidationError("--count must be positive and --warmup not negative.") }
    }

    func run() async throws {
        let line: ReportLine
        switch kind {
        case .engineCost:
            line = try EngineCostMeasurement(count: count, warmup: warmup).run()
        }
        print(line.jsonText)
    }
}
