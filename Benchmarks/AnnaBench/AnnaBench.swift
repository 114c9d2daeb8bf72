import ArgumentParser

/// `anna-bench`: throughput, scale, soak and latency of Anna's host path (issue 6).
///
/// ```
/// swift build -c release --product anna-bench
/// .build/release/anna-bench --scenario W1 --events 200000 --runs 3
/// .build/release/anna-bench --profile quick --json-out .build/bench.json
/// .build/release/anna-bench compare --baseline Benchmarks/baseline.json --current .build/bench.json
/// ```
@main
struct AnnaBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "anna-bench",
        abstract: "Measure Anna's host path: W1 throughput, W2 scale, W3 soak, W4 latency.",
        discussion: "See Benchmarks/README.md. Build in release: swift build -c release --product anna-bench.",
        subcommands: [RunCommand.self, CompareCommand.self, MeasureCommand.self, MeasureBulkCommand.self, WorkloadCommand.self],
        defaultSubcommand: RunCommand.self)
}
