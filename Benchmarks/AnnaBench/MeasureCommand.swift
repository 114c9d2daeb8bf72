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

        /// The options this kind takes.
        var options: [String] {
            switch self {
            case .throughput:
                return [
                    "--screens", "--tasks", "--patterns", "--events", "--module", "--module-task-folder",
                    "--module-allowed-root", "--warmup", "--every-cell", "--outbox", "--outbox-destinations", "--inspector",
                    "--threads", "--engine-only",
                ]
            case .soak: return ["--events", "--churn-every", "--sample-every"]
            case .latency: return ["--rate", "--seconds", "--warmup"]
            }
        }

        /// Why the others do not apply.
        var scope: String {
            switch self {
            case .throughput: return "a throughput run records as fast as it can, without churn or pacing."
            case .soak: return "a soak runs W1's 50 screens and tasks on the bundled core and is its own warm-up."
            case .latency:
                return "a latency run offers rate × seconds events to W1's 50 screens and tagged tasks on the bundled core."
            }
        }
    }

    @Argument(help: "throughput (W1, W2, --module), soak (W3) or latency (W4).")
    var kind: Kind

    // Options are optional so that validate() can tell which were given: each kind takes
    // only its own (`Kind.options`).

    @Option(help: "Throughput: screens in the tree (22 nodes each, plus __root__ and app; default 50).")
    var screens: Int?

    @Option(help: "Throughput: task set, w1, w1-portable, w1-tagged or scale (default w1).")
    var tasks: TaskSet?

    @Option(help: "Throughput: patterns in the scale task set (default 100).")
    var patterns: Int?

    @Flag(help: "Throughput: attach an inspector, serve it and read its event stream (I1); time 20 results to its client after.")
    var inspector = false

    @Flag(help: "Throughput: events go to every cell of the tree (k mod cells), not to the first 1,000 (k mod 1000, W1's mix).")
    var everyCell = false

    @Flag(help: "Throughput: every result is also appended to an outbox (default configuration) in a temporary folder.")
    var outbox = false

    @Flag(
        help: """
            Throughput: every result is also appended to an outbox with two destinations (a, b), each \
            uploaded while the run goes on (a in Segment's format, b in Anna's) to a loopback receiver.
            """)
    var outboxDestinations = false

    @Option(help: "Throughput and soak: events to record (default 1,000,000).")
    var events: Int?

    @Option(
        help: ArgumentHelp(
            "Throughput: an analytics module folder to run instead of the bundled core.", valueName: "dir"))
    var module: String?

    @Option(help: "Throughput: the module's task folder, relative to it, replaced by the generated tasks (default task).")
    var moduleTaskFolder: String?

    @Option(help: ArgumentHelp("Throughput: more folders the module may read (its parent is always allowed).", valueName: "dir"))
    var moduleAllowedRoot: [String] = []

    @Option(help: "Soak: replace one screen every this many events (default 10,000).")
    var churnEvery: Int?

    @Option(help: "Soak: sample resident memory every this many events (default 1,000,000).")
    var sampleEvery: Int?

    @Option(help: "Latency: events offered per second (default 50,000).")
    var rate: Double?

    @Option(help: "Latency: seconds of offered events (default 3).")
    var seconds: Double?

    @Option(
        help: ArgumentHelp(
            "Throughput and latency: events recorded and flushed before the measured ones, untimed, so JavaScriptCore's "
                + "optimizing tiers are done (default: \(Sizes.throughputWarmup) for throughput, \(Sizes.latencyWarmup) for latency).",
            valueName: "events"))
    var warmup: Int?

    @Option(help: "Throughput: threads recording the timed events at once on the one manager (default 1).")
    var threads: Int?

    @Flag(
        help: ArgumentHelp(
            "Throughput: W1's JavaScript alone, the bundled core and W1's tasks driven from JavaScript "
                + "(\(EngineOnlyMeasurement.mixPath)) in the embedded engine, with no host path; "
                + "takes --screens, --tasks w1, --events and --warmup."))
    var engineOnly = false

    func validate() throws {
        let given: [(option: String, isGiven: Bool)] = [
            ("--screens", screens != nil), ("--tasks", tasks != nil), ("--patterns", patterns != nil),
            ("--events", events != nil), ("--module", module != nil), ("--module-task-folder", moduleTaskFolder != nil),
            ("--module-allowed-root", !moduleAllowedRoot.isEmpty), ("--churn-every", churnEvery != nil),
            ("--sample-every", sampleEvery != nil), ("--rate", rate != nil), ("--seconds", seconds != nil),
            ("--warmup", warmup != nil), ("--every-cell", everyCell), ("--outbox", outbox),
            ("--outbox-destinations", outboxDestinations), ("--inspector", inspector), ("--threads", threads != nil),
            ("--engine-only", engineOnly),
        ]
        let foreign = given.filter { $0.isGiven && !kind.options.contains($0.option) }.map(\.option)
        if !foreign.isEmpty {
            throw ValidationError(
                "measure \(kind.rawValue) does not take \(foreign.joined(separator: ", ")): \(kind.scope) "
                    + "Its options: \(kind.options.joined(separator: ", ")).")
        }
        guard (screens ?? 1) > 0, (events ?? 1) > 0, (patterns ?? 3) >= 3, (threads ?? 1) > 0 else {
            throw ValidationError("--screens, --events and --threads must be positive and --patterns at least 3.")
        }
        if engineOnly {
            var refused = given.filter { $0.isGiven && !Self.engineOnlyOptions.contains($0.option) }.map(\.option)
            if let tasks, tasks != .w1 { refused.append("--tasks \(tasks.rawValue)") }
            guard refused.isEmpty else {
                throw ValidationError(
                    "--engine-only runs W1's tasks with no host path, so it does not take \(refused.joined(separator: ", ")).")
            }
        }
        guard (churnEvery ?? 1) > 0, (sampleEvery ?? 1) > 0, (rate ?? 1) > 0, (seconds ?? 1) > 0, (warmup ?? 0) >= 0 else {
            throw ValidationError("--churn-every, --sample-every, --rate and --seconds must be positive, --warmup not negative.")
        }
    }

    func run() async throws {
        let line: ReportLine
        switch kind {
        case .throughput where engineOnly:
            line = try EngineOnlyMeasurement(
                screens: screens ?? HostTree.w1Screens, events: events ?? Self.defaultEvents, warmup: warmup ?? Sizes.throughputWarmup
            ).run()
        case .throughput:
            line = try await ThroughputMeasurement(
                screens: screens ?? HostTree.w1Screens, tasks: tasks ?? .w1, patterns: patterns ?? 100,
                events: events ?? Self.defaultEvents, warmup: warmup ?? Sizes.throughputWarmup, everyCell: everyCell,
                module: moduleChoice, outbox: outbox, outboxUploaders: outboxDestinations, inspector: inspector,
                threads: threads ?? 1
            ).run()
        case .soak:
            line = try await SoakMeasurement(
                events: events ?? Self.defaultEvents, churnEvery: churnEvery ?? 10_000, sampleEvery: sampleEvery ?? 1_000_000
            ).run()
        case .latency:
            line = try await LatencyMeasurement(
                rate: rate ?? 50_000, seconds: seconds ?? 3, warmup: warmup ?? Sizes.latencyWarmup
            ).run()
        }
        print(line.jsonText)
    }

    private static let defaultEvents = 1_000_000
    /// The options `--engine-only` goes with.
    private static let engineOnlyOptions: Set = ["--screens", "--tasks", "--events", "--warmup", "--engine-only"]

    private var moduleChoice: ModuleChoice {
        guard let module else { return .bundled }
        return .folder(
            URL(fileURLWithPath: module), taskFolderName: moduleTaskFolder ?? "task",
            allowedRoots: moduleAllowedRoot.map { URL(fileURLWithPath: $0) })
    }
}
