import ArgumentParser
import Foundation

/// `anna-bench [run] [--profile quick|full] [--scenario …] …`: runs the scenarios and prints
/// one JSON line per scenario and variant (standard output) and a table (standard error).
///
/// Exit codes: 0 done; 1 a measurement failed (a module error, or not the expected number
/// of results: the benchmark never prints a figure for work it did not do); 64 bad
/// arguments.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the scenarios (the default command).",
        discussion: """
            W1 standard throughput, W2 scale (tree sizes, pattern counts, registration and
            memory per node), W3 soak (memory while screens come and go), W4 latency at a
            fixed rate, W5 `anna run` replaying W1 as an event stream (against the original
            core on Node when it is there), W6 `anna replay` of many sessions (1 and 2 jobs, and
            the engine cost per session), T1 TypeScript task files (cold and cached start of the
            demo's TypeScript module, W1's replay from .ts files; both against JavaScript), O1 the
            outbox, I1 W1 with an inspector, `destinations`
            an outbox's backlog flushed in each delivery format to a loopback receiver. Each
            measurement runs in a child process (`anna-bench measure`).

            Examples:
              anna-bench --scenario W1 --events 200000 --runs 3
              anna-bench --profile quick --json-out .build/bench.json
              anna-bench --scenario W1 --module fixtures/protocol-module
            """)

    @Option(help: "Sizes: full (default; the issue's sizes) or quick (the baseline's).")
    var profile: Profile = .full

    @Option(
        help:
            "W1, W2, W3, W4, W5, W6, T1 (TypeScript task files), O1 (the outbox), I1 (the inspector's cost), destinations (delivery formats) or all.")
    var scenario: ScenarioChoice = .all

    @Option(help: "Runs of W1, of each W2 variant and of W4; the median is reported (both profiles: 5).")
    var runs: Int?

    @Option(help: "W1 events per run (both profiles: 1,000,000).")
    var events: Int?

    @Option(name: .customLong("w2-events"), help: "W2 events per variant and run (quick 500,000; full 1,000,000).")
    var w2Events: Int?

    @Option(
        name: .customLong("w2-nodes"),
        help: ArgumentHelp(
            "W2 tree sizes in nodes, with 100 patterns; those of more than 1,000 cells also with events on every cell (default 1000,10000,100000).",
            valueName: "n,n,…"))
    var w2Nodes: String?

    @Option(
        name: .customLong("w2-patterns"),
        help: ArgumentHelp("W2 pattern counts, on a 1000-node tree (default 10,100,1000,10000).", valueName: "n,n,…"))
    var w2Patterns: String?

    @Option(help: "W3 events (quick 2,000,000; full 10,000,000).")
    var soakEvents: Int?

    @Option(help: "W3: replace one screen every this many events (10,000).")
    var soakChurnEvery: Int?

    @Option(help: "W3: sample resident memory every this many events (1,000,000).")
    var soakSampleEvery: Int?

    @Option(help: "W4 events offered per second (50,000).")
    var rate: Double?

    @Option(help: "W4 seconds of offered events per run (quick 3; full 5).")
    var latencySeconds: Double?

    @Option(
        name: .customLong("destination-results"),
        help: "destinations: results flushed per format and round (quick 5,000; full 200,000).")
    var destinationResults: Int?

    @Option(
        name: .customLong("destination-rounds"),
        help: "destinations: rounds, every format once per round in a rotated order (quick 3; full 3).")
    var destinationRounds: Int?

    @Option(
        name: .customLong("w1-destination-runs"),
        help: "W1's destinations=2 variant (two destinations, two uploaders): in how many of W1's rounds it runs (quick 2; full 5).")
    var w1DestinationRuns: Int?

    @Option(
        help: ArgumentHelp(
            "Also run W1 with this analytics module (repeatable); its task folder is replaced in memory by the W1 tasks.",
            valueName: "dir"))
    var module: [String] = []

    @Option(help: "The --module's task folder, relative to it.")
    var moduleTaskFolder = "task"

    @Option(help: ArgumentHelp("More folders a --module may read (its parent folder is always allowed).", valueName: "dir"))
    var moduleAllowedRoot: [String] = []

    @Option(
        help: ArgumentHelp(
            "W5: the original core (coppercash/Anna core/built/anna/index.js) to compare with on Node (default: ANNA_ORIGINAL_CORE, else .build/original-anna/index.js).",
            valueName: "file"))
    var originalCore: String?

    @Option(help: ArgumentHelp("W5: the Node driver of the original core.", valueName: "file"))
    var nodeDriver = "Benchmarks/node/replay-original.js"

    @Option(help: ArgumentHelp("Also write the JSON lines to this file.", valueName: "file"))
    var jsonOut: String?

    func validate() throws {
        let sizes = try self.sizes()
        guard sizes.runs > 0, sizes.w1Events > 0, sizes.w2Events > 0, sizes.soakEvents > 0, sizes.soakChurnEvery > 0,
            sizes.soakSampleEvery > 0, sizes.rate > 0, sizes.latencySeconds > 0, sizes.destinationResults > 0,
            sizes.destinationRounds > 0, sizes.w1DestinationRuns >= 0
        else { throw ValidationError("Counts, rates and durations must be positive.") }
        guard sizes.w2Nodes.allSatisfy({ $0 >= 24 }), sizes.w2Patterns.allSatisfy({ $0 >= 3 }) else {
            throw ValidationError("--w2-nodes must be at least 24 (one screen) and --w2-patterns at least 3.")
        }
        for folder in module where !FileManager.default.fileExists(atPath: folder + "/index.js") {
            throw ValidationError("--module \(folder): no index.js there; give an analytics module folder.")
        }
    }

    func run() async throws {
        let output = Output()
        var runner = ScenarioRunner(
            profile: profile, sizes: try sizes(), modules: module, moduleTaskFolder: moduleTaskFolder,
            moduleAllowedRoots: moduleAllowedRoot, output: output)
        runner.node = ReplayMeasurement.findNode(core: originalCore, driver: nodeDriver)
        do {
            for each in scenario.scenarios {
                printError("\(each.rawValue):")
                try await runner.run(each)
            }
        } catch let error as BenchError {
            printError("anna-bench: \(error)")
            throw ExitCode(1)
        }
        printError("")
        output.printTable()
        let noisy = output.lines.filter { $0.number("othersCpuShare") > ScenarioRunner.noisyShare }
        if !noisy.isEmpty {
            printError(
                "warning: other processes used more than \(Int(ScenarioRunner.noisyShare * 100))% of the CPUs during "
                    + "\(noisy.count) of \(output.lines.count) lines: their figures are low; "
                    + "do not keep this run as a baseline")
        }
        if let jsonOut {
            try output.write(to: jsonOut)
            printError("wrote \(output.lines.count) lines to \(jsonOut)")
        }
    }

    /// The profile's sizes with the options given on top.
    private func sizes() throws -> Sizes {
        var sizes = profile.sizes
        if let runs { sizes.runs = runs }
        if let events { sizes.w1Events = events }
        if let w2Events { sizes.w2Events = w2Events }
        if let w2Nodes { sizes.w2Nodes = try Self.list(w2Nodes, option: "--w2-nodes") }
        if let w2Patterns { sizes.w2Patterns = try Self.list(w2Patterns, option: "--w2-patterns") }
        if let soakEvents { sizes.soakEvents = soakEvents }
        if let soakChurnEvery { sizes.soakChurnEvery = soakChurnEvery }
        if let soakSampleEvery { sizes.soakSampleEvery = soakSampleEvery }
        if let rate { sizes.rate = rate }
        if let latencySeconds { sizes.latencySeconds = latencySeconds }
        if let destinationResults { sizes.destinationResults = destinationResults }
        if let destinationRounds { sizes.destinationRounds = destinationRounds }
        if let w1DestinationRuns { sizes.w1DestinationRuns = w1DestinationRuns }
        return sizes
    }

    private static func list(_ text: String, option: String) throws -> [Int] {
        let values = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")) }
        guard !values.isEmpty, values.allSatisfy({ $0 != nil }) else {
            throw ValidationError("\(option) takes whole numbers separated by commas, e.g. 1000,10000.")
        }
        return values.compactMap { $0 }
    }
}

/// What `--scenario` takes: one scenario or `all`, in any case (`w1`, `ALL`).
enum ScenarioChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case w1 = "W1"
    case w2 = "W2"
    case w3 = "W3"
    case w4 = "W4"
    case w5 = "W5"
    case w6 = "W6"
    case t1 = "T1"
    case o1 = "O1"
    case i1 = "I1"
    case destinations
    case all

    init?(argument: String) {
        guard let choice = Self.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(argument) == .orderedSame })
        else { return nil }
        self = choice
    }

    /// The scenarios chosen, in order.
    var scenarios: [Scenario] {
        Scenario(rawValue: rawValue).map { [$0] } ?? Scenario.allCases
    }
}
