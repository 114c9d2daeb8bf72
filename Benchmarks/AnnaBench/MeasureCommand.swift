import ArgumentParser
import Foundation

/// `anna-bench measure KIND …`: one measurement in this process, printed as one JSON line
/// of raw figures.
///
/// The scenarios run every measurement in a child process of its own, so each starts from
/// a fresh heap and its memory figures do not carry what an earlier one left. Run it alone
/// to profile a single workload:
///
/// ```
/// perf record -g .build/release/anna-bench measure throughput --events 1000000
/// perf record -g .build/release/anna-bench measure throughput --screens 4545 --tasks scale --patterns 100
/// ```
struct MeasureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Run one measurement in this process and print its raw figures (for profiling; the scenarios use it).")

    /// What to measure.
    enum Kind: String, CaseIterable, ExpressibleByArgument {
        case throughput, soak, latency
    }

    @Argument(help: "throughput (W1, W2, --module), soak (W3) or latency (W4).")
    var kind: Kind

    @Option(help: "Screens in the tree (22 nodes each, plus __root__ and app).")
    var screens = 50

    @Option(help: "Task set: w1, w1-portable, w1-tagged or scale.")
    var tasks: TaskSet = .w1

    @Option(help: "Patterns in the scale task set.")
    var patterns = 100

    @Option(help: "Events to record.")
    var events = 1_000_000

    @Option(help: ArgumentHelp("An analytics module folder to run instead of the bundled core.", valueName: "dir"))
    var module: String?

    @Option(help: "The module's task folder, relative to it, replaced by the generated tasks.")
    var moduleTaskFolder = "task"

    @Option(help: ArgumentHelp("More folders the module may read (its parent is always allowed).", valueName: "dir"))
    var moduleAllowedRoot: [String] = []

    @Option(help: "Soak: replace one screen every this many events.")
    var churnEvery = 10_000

    @Option(help: "Soak: sample resident memory every this many events.")
    var sampleEvery = 1_000_000

    @Option(help: "Latency: events offered per second.")
    var rate = 50_000.0

    @Option(help: "Latency: seconds of offered events.")
    var seconds = 3.0

    @Option(help: ArgumentHelp(
        "Events recorded and flushed before the measured ones, untimed, so JavaScriptCore's optimizing tiers are done "
            + "(default: \(Sizes.throughputWarmup) for throughput, \(Sizes.latencyWarmup) for latency; not for soak).",
        valueName: "events"))
    var warmup: Int?

    func validate() throws {
        guard screens > 0, events > 0, patterns >= 3 else {
            throw ValidationError("--screens and --events must be positive and --patterns at least 3.")
        }
        guard churnEvery > 0, sampleEvery > 0, rate > 0, seconds > 0, (warmup ?? 0) >= 0 else {
            throw ValidationError("--churn-every, --sample-every, --rate and --seconds must be positive, --warmup not negative.")
        }
        if kind == .soak, warmup != nil {
            throw ValidationError("--warmup is for throughput and latency; a soak is its own warm-up.")
        }
    }

    func run() async throws {
        let line: ReportLine
        switch kind {
        case .throughput:
            line = try await ThroughputMeasurement(
                screens: screens, tasks: tasks, patterns: patterns, events: events,
                warmup: warmup ?? Sizes.throughputWarmup, module: moduleChoice
            ).run()
        case .soak:
            line = try await SoakMeasurement(events: events, churnEvery: churnEvery, sampleEvery: sampleEvery).run()
        case .latency:
            line = try await LatencyMeasurement(rate: rate, seconds: seconds, warmup: warmup ?? Sizes.latencyWarmup).run()
        }
        print(line.jsonText)
    }

    private var moduleChoice: ModuleChoice {
        guard let module else { return .bundled }
        return .folder(
            URL(fileURLWithPath: module), taskFolderName: moduleTaskFolder,
            allowedRoots: moduleAllowedRoot.map { URL(fileURLWithPath: $0) })
    }
}
