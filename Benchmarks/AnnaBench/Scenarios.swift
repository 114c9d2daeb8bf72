import BenchStats
import CoreJS
import Foundation

/// One scenario of a run.
enum Scenario: String, CaseIterable, Sendable {
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
}

/// Runs the scenarios, each measurement in a child process (``ChildProcess``), and turns
/// the raw figures into one report line per scenario and variant: medians over runs, all
/// runs, and the list of figures `compare` guards (`guard`).
struct ScenarioRunner {
    /// Patterns of the W2 tree-size variants.
    static let w2TreePatterns = 100
    /// Nodes (nominal) of the W2 pattern-count variants.
    static let w2PatternNodes = 1_000
    /// W2 guards memory per node only on trees at least this large: on small trees the
    /// resident set moves by whole heap blocks and the figure per node is noise. Registration
    /// time is reported, not guarded: page faults make it follow the virtual machine's drift
    /// (3.6 to 6.8 µs per node for one binary within an hour).
    static let memoryGuardMinimumNodes = 10_000

    var profile: Profile
    var sizes: Sizes
    /// `--module` folders, as given.
    var modules: [String]
    var moduleTaskFolder: String
    var moduleAllowedRoots: [String]
    var output: Output
    /// W5's comparison with the original core on Node (or why it is skipped).
    var node: Result<ReplayMeasurement.NodeOriginal, ReplayMeasurement.NodeSkipped> = .failure(.init(description: "not looked for"))

    /// Runs `scenario`; its lines go to ``output`` as they are ready.
    func run(_ scenario: Scenario) async throws {
        switch scenario {
        case .w1: try runW1()
        case .w2: try runW2()
        case .w3: try runW3()
        case .w4: try runW4()
        case .w5: try runW5()
        case .t1: try runTypeScript()
        case .w6: try runW6()
        case .o1: try await runOutbox()
        case .i1: try runInspector()
        case .destinations: try await runDestinations()
        }
    }

    // MARK: - W1

    /// W1 on the bundled core, with an outbox attached, with an outbox of two destinations
    /// and their uploaders (in the first ``Sizes/w1DestinationRuns`` rounds), and on each
    /// `--module`, runs interleaved so that the machine's noise falls on all of them alike.
    private func runW1() throws {
        typealias Variant = (name: String, module: String, tasks: TaskSet, arguments: [String], rounds: Int)
        var variants: [Variant] = [
            ("bundled", "bundled", .w1, [], sizes.runs), ("outbox", "bundled", .w1, ["--outbox"], sizes.runs),
            (Self.w1ThreadsVariant, "bundled", .w1, ["--threads", "\(Self.w1Threads)"], sizes.runs),
            (Self.w1EngineOnlyVariant, "bundled", .w1, ["--engine-only"], sizes.runs),
        ]
        if sizes.w1DestinationRuns > 0 {
            variants.append(
                (Self.w1DestinationsVariant, "bundled", .w1, ["--outbox-destinations"], min(sizes.w1DestinationRuns, sizes.runs)))
        }
        variants += modules.map { module -> Variant in
            (
                "module=\(module)", module, .w1Portable,
                ["--module", module, "--module-task-folder", moduleTaskFolder]
                    + moduleAllowedRoots.flatMap { ["--module-allowed-root", $0] }, sizes.runs
            )
        }
        var runs: [[ReportLine]] = Array(repeating: [], count: variants.count)
        let reference = try nodeW1Reference()
        var nodeRuns: [ReportLine] = []
        for run in 1...sizes.runs {
            if let reference {
                let raw = try reference.measurement.run(
                    taskFolder: reference.taskFolder, screens: HostTree.w1Screens, events: sizes.w1Events, warmup: Sizes.throughputWarmup)
                nodeRuns.append(raw)
                output.progress(
                    "W1 \(Self.w1NodeVariant) run \(run)/\(sizes.runs): \(Output.grouped(raw.eventsPerSecond)) events/s, "
                        + String(format: "%.0f ns CPU/event", raw.number("cpuSeconds") * 1e9 / raw.number("events")) + Self.noise(raw))
            }
            for (position, variant) in variants.enumerated() where run <= variant.rounds {
                let raw = try ChildProcess.measure(
                    [
                        "throughput", "--screens", "\(HostTree.w1Screens)", "--events", "\(sizes.w1Events)",
                        "--tasks", variant.tasks.rawValue,
                    ] + variant.arguments)
                runs[position].append(raw)
                var message = "W1 \(variant.name) run \(run)/\(variant.rounds): \(Output.grouped(raw.eventsPerSecond)) events/s"
                if variant.name == Self.w1DestinationsVariant, let bundled = runs[0].last {
                    message +=
                        String(format: " (%.2f× bundled), dropped ", raw.eventsPerSecond / max(bundled.eventsPerSecond, 1e-9))
                        + "\(Output.grouped(raw.number("outboxDropped"))) of "
                        + "\(Output.grouped(raw.number("outboxDropped") + raw.number("outboxWritten"))) results"
                }
                output.progress(message + Self.noise(raw))
            }
        }
        for (position, variant) in variants.enumerated() {
            var line = header("W1", variant.name)
            line["module"] = .string(variant.module)
            line["tasks"] = .string(variant.tasks.rawValue)
            addThroughput(runs[position], to: &line)
            if variant.name != Self.w1EngineOnlyVariant {
                line["peakGrowthMB"] = .rounded(Stats.median(runs[position].map { $0.number("peakGrowthBytes") }) / 1e6, 1)
            }
            line["guard"] = ["eventsPerSecond"]
            if variant.name == "bundled" {
                addNodeReference(nodeRuns, pairedWith: runs[position], to: &line)
                if let engineOnly = variants.firstIndex(where: { $0.name == Self.w1EngineOnlyVariant }) {
                    addHostShare(runs[position], engineOnly: runs[engineOnly], to: &line)
                }
            }
            if variant.name == Self.w1EngineOnlyVariant { addEngineOnly(runs[position], node: nodeRuns, to: &line) }
            if variant.name == "outbox" || variant.name == Self.w1DestinationsVariant {
                addOutbox(runs[position], pairedWith: runs[0], to: &line)
            }
            if variant.name == Self.w1ThreadsVariant { addThreads(runs[position], pairedWith: runs[0], to: &line) }
            if variant.name == Self.w1DestinationsVariant {
                addDestinations(runs[position], bundled: runs[0], outbox: runs[1], to: &line)
            }
            output.emit(line)
        }
    }

    /// The name of W1's variant with two destinations and their uploaders.
    static let w1DestinationsVariant = "destinations=2"
    /// Threads of W1's many-threads variant, and its name.
    static let w1Threads = 16
    static let w1ThreadsVariant = "threads=\(w1Threads)"

    /// The many-threads variant against `bundled` (one thread) in the same rounds: the rate,
    /// the CPU per event of the whole process and of the recording threads (medians of the pairs).
    private func addThreads(_ runs: [ReportLine], pairedWith bundled: [ReportLine], to line: inout ReportLine) {
        let ratio = { (figure: (ReportLine) -> Double) in
            Stats.median(zip(runs, bundled).map { figure($0) / max(figure($1), 1e-15) })
        }
        line["threads"] = .number(Double(Self.w1Threads))
        line["relativeToBundled"] = .rounded(ratio { $0.eventsPerSecond }, 3)
        line["cpuRelativeToBundled"] = .rounded(ratio { $0.number("cpuSeconds") }, 3)
        line["recordCpuRelativeToBundled"] = .rounded(ratio { $0.number("recordCpuSeconds") }, 3)
        line["guard"] = []
    }

    /// The name of W1's line of its JavaScript alone (`measure throughput --engine-only`).
    static let w1EngineOnlyVariant = "engine-only"

    /// CPU per event of a run, all threads.
    private static func cpuPerEvent(_ run: ReportLine) -> Double { run.number("cpuSeconds") / max(run.number("events"), 1) }

    /// The bundled line's `hostCpuNsPerEvent`: its CPU per event minus the engine-only run's of
    /// the same round (median of the pairs), what the host path adds to W1's JavaScript.
    private func addHostShare(_ bundled: [ReportLine], engineOnly: [ReportLine], to line: inout ReportLine) {
        let added = zip(bundled, engineOnly).map { (Self.cpuPerEvent($0) - Self.cpuPerEvent($1)) * 1e9 }
        line["hostCpuNsPerEvent"] = .rounded(Stats.median(added), 1)
    }

    /// The engine-only line: reported, not guarded (W1's bundled line guards the same
    /// JavaScript), with its CPU per event over the original core's on Node when Node ran.
    private func addEngineOnly(_ runs: [ReportLine], node nodeRuns: [ReportLine], to line: inout ReportLine) {
        line["module"] = .string("bundled core in JavaScriptCore, driven from JavaScript (no host path)")
        line["guard"] = []
        guard !nodeRuns.isEmpty else { return }
        line["cpuRelativeToNode"] = .rounded(Stats.median(zip(runs, nodeRuns).map { Self.cpuPerEvent($0) / max(Self.cpuPerEvent($1), 1e-15) }), 3)
    }

    /// The name of W1's reference line: the original core on Node, in-process.
    static let w1NodeVariant = "node-original"

    /// W1's reference on Node and the task folder it reads, or `nil` (said once) without
    /// Node or the original core.
    private func nodeW1Reference() throws -> (measurement: NodeW1Measurement, taskFolder: URL)? {
        guard case let .success(original) = node else {
            if case let .failure(skipped) = node { output.progress("W1: the comparison with the original core on Node is skipped: \(skipped)") }
            return nil
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("anna-bench-w1-node-\(getpid())/task")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try TaskGenerator.source(.w1, screens: HostTree.w1Screens, patterns: 0)
                .write(to: folder.appendingPathComponent("index.js"), atomically: true, encoding: .utf8)
        } catch {
            throw BenchError.workspaceFailed(path: folder.path, reason: "\(error)")
        }
        return (NodeW1Measurement(original: original), folder)
    }

    /// The bundled line's comparison with the original core on Node, and Node's own line:
    /// CPU seconds per event over Node's (`cpuRelativeToNode`, the median of the rounds'
    /// pairs; the aim is at most 0.5) and the wall rate over Node's.
    private func addNodeReference(_ nodeRuns: [ReportLine], pairedWith bundled: [ReportLine], to line: inout ReportLine) {
        guard !nodeRuns.isEmpty else {
            line["cpuRelativeToNode"] = .string("not measured in this run")
            return
        }
        let pairs = zip(bundled, nodeRuns).map { Self.cpuPerEvent($0) / max(Self.cpuPerEvent($1), 1e-15) }
        line["cpuRelativeToNode"] = .rounded(Stats.median(pairs), 3)
        line["cpuPairsRelativeToNode"] = .array(pairs.map { .rounded($0, 3) })
        line["relativeToNode"] = .rounded(
            Stats.median(zip(bundled, nodeRuns).map { $0.eventsPerSecond / max($1.eventsPerSecond, 1e-9) }), 3)
        var reference = header("W1", Self.w1NodeVariant)
        reference["module"] = .string("original core on Node (in-process)")
        reference["tasks"] = .string(TaskSet.w1.rawValue)
        addThroughput(nodeRuns, to: &reference)
        reference["guard"] = []
        output.emit(reference)
    }

    /// The outbox variant's figures: its rate over the bundled run of the same round (median
    /// of the pairs), what the outbox wrote and dropped, and how long it took to catch up.
    private func addOutbox(_ runs: [ReportLine], pairedWith bundled: [ReportLine], to line: inout ReportLine) {
        let ratios = zip(runs, bundled).map { $0.eventsPerSecond / max($1.eventsPerSecond, 1e-9) }
        line["relativeToBundled"] = .rounded(Stats.median(ratios), 3)
        line["recordRelativeToBundled"] = .rounded(
            Stats.median(zip(runs, bundled).map { $0.number("recordSeconds") / max($1.number("recordSeconds"), 1e-9) }), 3)
        for figure in ["outboxWritten", "outboxDropped", "backpressureEpisodes"] {
            line[figure] = .number(Stats.median(runs.map { $0.number(figure) }))
        }
        line["catchUpSeconds"] = .rounded(Stats.median(runs.map { $0.number("catchUpSeconds") }), 3)
        line["guard"] = ["eventsPerSecond", "relativeToBundled"]
    }

    /// The `destinations=2` variant's own figures: every pair's ratio to `bundled`, its rate
    /// over the one-destination outbox's of the same round, the share of results dropped, and
    /// per destination what its uploader delivered (during the timed events, and by the end
    /// of the catch-up) in how many requests and bytes.
    private func addDestinations(
        _ runs: [ReportLine], bundled: [ReportLine], outbox: [ReportLine], to line: inout ReportLine
    ) {
        line["pairRatios"] = .array(zip(runs, bundled).map { .rounded($0.eventsPerSecond / max($1.eventsPerSecond, 1e-9), 3) })
        line["relativeToOutbox"] = .rounded(
            Stats.median(zip(runs, outbox).map { $0.eventsPerSecond / max($1.eventsPerSecond, 1e-9) }), 3)
        let total = { (run: ReportLine) in run.number("outboxWritten") + run.number("outboxDropped") }
        line["outboxResults"] = .number(Stats.median(runs.map(total)))
        line["droppedShare"] = .rounded(Stats.median(runs.map { $0.number("outboxDropped") / max(total($0), 1) }), 4)
        line["outboxCapDropRows"] = .number(Stats.median(runs.map { $0.number("outboxCapDropRows") }))
        for (name, format) in [("a", "segment"), ("b", "anna")] {
            line["deliveredPerSecond.\(name).\(format)"] = .rounded(Stats.median(runs.map { $0.number("deliveredPerSecond.\(name)") }))
            line["delivered.\(name).\(format)"] = .number(Stats.median(runs.map { $0.number("delivered.\(name)") }))
            line["requests.\(name).\(format)"] = .number(Stats.median(runs.map { $0.number("requests.\(name)") }))
            line["wireBytesPerResult.\(name).\(format)"] = .rounded(
                Stats.median(runs.map { $0.number("wireBytes.\(name)") / max($0.number("delivered.\(name)"), 1) }), 1)
        }
    }

    // MARK: - W2

    /// W2: the tree sizes at 100 patterns, then the pattern counts on the 1k-node tree (the
    /// shared 1k/100 variant once), all with W1's event mix (events on 1,000 cells); then the
    /// trees with more cells than that with events on every cell (`cells=all`). Each variant runs
    /// `runs` times, round by round (every variant once, then every variant again, …) so that
    /// the machine's slow minutes fall on all variants alike and `relativeToReference`
    /// compares like with like.
    private func runW2() throws {
        var variants: [W2Variant] = sizes.w2Nodes.map { W2Variant(nodes: $0, patterns: Self.w2TreePatterns, everyCell: false) }
        for patterns in sizes.w2Patterns {
            let variant = W2Variant(nodes: Self.w2PatternNodes, patterns: patterns, everyCell: false)
            if !variants.contains(variant) { variants.append(variant) }
        }
        variants += sizes.w2Nodes.map { W2Variant(nodes: $0, patterns: Self.w2TreePatterns, everyCell: true) }
            .filter { $0.screens * BenchScreen.cellCount > EventMix.cells }
        var runs: [[ReportLine]] = Array(repeating: [], count: variants.count)
        for run in 1...sizes.runs {
            for (position, variant) in variants.enumerated() {
                let raw = try ChildProcess.measure(
                    [
                        "throughput", "--screens", "\(variant.screens)", "--tasks", TaskSet.scale.rawValue,
                        "--patterns", "\(variant.patterns)", "--events", "\(sizes.w2Events)",
                    ] + (variant.everyCell ? ["--every-cell"] : []))
                runs[position].append(raw)
                output.progress(
                    "W2 \(variant.name) run \(run)/\(sizes.runs): "
                        + "\(Output.grouped(raw.eventsPerSecond)) events/s, "
                        + "\(Output.grouped(raw.bytesPerNode)) B/node" + Self.noise(raw))
            }
        }
        var lines: [ReportLine] = []
        for (position, variant) in variants.enumerated() {
            let runs = runs[position]
            var line = header("W2", variant.name)
            addThroughput(runs, to: &line)
            line["cellsWithEvents"] = runs[0]["cellsWithEvents"]
            let registered = runs[0].number("registeredNodes")
            line["registeredNodes"] = .number(registered)
            line["registrationNsPerNode"] = .rounded(Stats.median(runs.map { $0.number("registrationSeconds") * 1e9 / registered }))
            line["bytesPerNode"] = .rounded(Stats.median(runs.map(\.bytesPerNode)))
            line["rssAfterRegistrationMB"] = .rounded(Stats.median(runs.map { $0.number("rssAfterRegistration") / 1_048_576 }), 1)
            line["guard"] =
                registered >= Double(Self.memoryGuardMinimumNodes)
                ? ["eventsPerSecond", "bytesPerNode"] : ["eventsPerSecond"]
            lines.append(line)
        }
        let referenceName = W2Variant(nodes: Self.w2PatternNodes, patterns: Self.w2TreePatterns, everyCell: false).name
        let reference = lines.first { $0.string("variant") == referenceName }
        for var line in lines {
            if let reference {
                line["relativeToReference"] = .rounded(line.number("eventsPerSecond") / reference.number("eventsPerSecond"), 3)
            }
            output.emit(line)
        }
    }

    // MARK: - W3

    private func runW3() throws {
        let raw = try ChildProcess.measure([
            "soak", "--events", "\(sizes.soakEvents)", "--churn-every", "\(sizes.soakChurnEvery)",
            "--sample-every", "\(sizes.soakSampleEvery)",
        ])
        let samples = raw["rssSamples"]?.arrayValue?.compactMap(\.numberValue) ?? []
        var line = header("W3", "soak")
        line["nodes"] = raw["nodes"]
        line["events"] = raw["events"]
        line["results"] = raw["results"]
        line["churnEvery"] = .number(Double(sizes.soakChurnEvery))
        line["screensReplaced"] = raw["screensReplaced"]
        line["sampleEvery"] = .number(Double(sizes.soakSampleEvery))
        line["rssAfterRegistrationMB"] = .rounded(raw.number("rssAfterRegistration") / 1_048_576, 1)
        line["rssSamplesMB"] = .array(samples.map { .rounded($0 / 1_048_576, 1) })
        line["rssRatio"] = .rounded((samples.last ?? 0) / max(samples.first ?? 1, 1), 3)
        line["rssPeakRatio"] = .rounded((samples.max() ?? 0) / max(samples.first ?? 1, 1), 3)
        line["seconds"] = .rounded(raw.number("seconds"), 3)
        line["eventsPerSecond"] = .rounded(raw.number("events") / max(raw.number("seconds"), 1e-9))
        line["othersCpuShare"] = .rounded(raw.number("othersCpuShare"), 2)
        line["calibrationMs"] = .rounded(raw.number("calibrationMs"), 2)
        line["guard"] = ["rssRatio"]
        output.progress("W3 soak: \(samples.count) samples, last/first \(line.number("rssRatio"))" + Self.noise(raw))
        output.emit(line)
    }

    // MARK: - W4

    private func runW4() throws {
        var runs: [ReportLine] = []
        for run in 1...sizes.runs {
            let raw = try ChildProcess.measure([
                "latency", "--rate", "\(sizes.rate)", "--seconds", "\(sizes.latencySeconds)",
                "--warmup", "\(Sizes.latencyWarmup)",
            ])
            runs.append(raw)
            output.progress(
                "W4 run \(run)/\(sizes.runs): p50 \(Output.milliseconds(raw.number("p50Ms"))), "
                    + "p99 \(Output.milliseconds(raw.number("p99Ms"))), max \(Output.milliseconds(raw.number("maxMs")))"
                    + Self.noise(raw))
        }
        var line = header("W4", "rate=\(Int(sizes.rate))")
        line["rate"] = .number(sizes.rate)
        line["seconds"] = .number(sizes.latencySeconds)
        line["events"] = runs[0]["events"]
        line["measured"] = runs[0]["measured"]
        line["achievedRate"] = .rounded(Stats.median(runs.map { $0.number("achievedRate") }))
        for key in ["p50Ms", "p90Ms", "p99Ms", "p999Ms", "maxMs"] {
            line[key] = .rounded(Stats.median(runs.map { $0.number(key) }), 4)
        }
        line["runs"] = .number(Double(runs.count))
        line["median"] = true
        line["allRunsP99Ms"] = .array(runs.map { .rounded($0.number("p99Ms"), 4) })
        line["othersCpuShare"] = .rounded(runs.map { $0.number("othersCpuShare") }.max() ?? 0, 2)
        line["calibrationMs"] = MachineSpeed.field(runs.map { $0.number("calibrationMs") })
        line["guard"] = ["p50Ms", "p99Ms"]
        output.emit(line)
    }

    // MARK: - W5

    /// W5: `anna run --tasks` over W1 as an event stream (release binary, results to a file),
    /// and the original core on Node over the same file, as interleaved pairs; medians.
    private func runW5() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("anna-bench-w5-\(getpid())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let workload = try awaitWorkload(events: sizes.w1Events, in: folder)
        let measurement = ReplayMeasurement(anna: try annaBinary(), node: node)
        var annaRuns: [ReplayMeasurement.Run] = []
        var nodeRuns: [ReplayMeasurement.Run] = []
        let annaOutput = folder.appendingPathComponent("anna.ndjson")
        let nodeOutput = folder.appendingPathComponent("node.ndjson")
        var gauges: [Double] = []
        for run in 1...sizes.runs {
            gauges.append(MachineSpeed.calibrate())
            let annaRun = try measurement.runAnna(workload, output: annaOutput)
            annaRuns.append(annaRun)
            var message = "W5 run \(run)/\(sizes.runs): anna \(Output.grouped(Double(workload.lines) / annaRun.seconds)) lines/s"
            if case let .success(original) = node {
                let nodeRun = try measurement.runNode(original, workload, output: nodeOutput)
                nodeRuns.append(nodeRun)
                guard try Data(contentsOf: annaOutput) == Data(contentsOf: nodeOutput) else {
                    throw BenchError.workspaceFailed(path: nodeOutput.path, reason: "the original core's results differ from anna's")
                }
                message += ", original core on Node \(Output.grouped(Double(workload.lines) / nodeRun.seconds)) lines/s"
            }
            let share = max(annaRun.othersCpuShare, nodeRuns.last?.othersCpuShare ?? 0)
            output.progress(message + (share > Self.noisyShare ? " (other processes used \(Int((share * 100).rounded()))% of the CPUs)" : ""))
        }
        var line = header("W5", "anna-run")
        let rates = annaRuns.map { Double(workload.lines) / $0.seconds }
        line["lines"] = .number(Double(workload.lines))
        line["registrations"] = .number(Double(workload.registrations))
        line["events"] = .number(Double(workload.events))
        line["results"] = .number(Double(workload.expected.total))
        line["seconds"] = .rounded(Stats.median(annaRuns.map(\.seconds)), 4)
        line["linesPerSecond"] = .rounded(Stats.median(rates))
        let cpuSeconds = Stats.median(annaRuns.map(\.cpuSeconds))
        line["cpuSeconds"] = .rounded(cpuSeconds, 4)
        line["linesPerCpuSecond"] = .rounded(Double(workload.lines) / cpuSeconds)
        line["runs"] = .number(Double(annaRuns.count))
        line["median"] = true
        line["allRuns"] = .array(rates.map { .rounded($0) })
        line["allRunsCpuSeconds"] = .array(annaRuns.map { .rounded($0.cpuSeconds, 4) })
        // CPU figures are what the guard compares: on a shared machine the wall clock moves
        // with the other processes, the CPU time a process takes much less. The ratio to Node
        // compares each pair's CPU times (both ran under the same load, one after the other).
        var guarded: [JSONValue] = ["linesPerCpuSecond"]
        switch node {
        case .success:
            let nodeRates = nodeRuns.map { Double(workload.lines) / $0.seconds }
            line["nodeLinesPerSecond"] = .rounded(Stats.median(nodeRates))
            line["nodeCpuSeconds"] = .rounded(Stats.median(nodeRuns.map(\.cpuSeconds)), 4)
            line["ratioToNode"] = .rounded(Stats.median(zip(rates, nodeRates).map { $0 / $1 }), 2)
            line["cpuRatioToNode"] = .rounded(Stats.median(zip(annaRuns, nodeRuns).map { $1.cpuSeconds / $0.cpuSeconds }), 2)
            line["resultsIdentical"] = true
            guarded.append("cpuRatioToNode")
        case let .failure(skipped):
            line["node"] = .string("node comparison skipped: \(skipped)")
            output.progress("W5: node comparison skipped: \(skipped)")
        }
        line["othersCpuShare"] = .rounded((annaRuns + nodeRuns).map(\.othersCpuShare).max() ?? 0, 2)
        line["calibrationMs"] = MachineSpeed.field(gauges)
        line["guard"] = .array(guarded)
        output.emit(line)
    }

    /// The release `anna` next to `anna-bench`.
    func annaBinary() throws -> URL {
        let anna = ChildProcess.executableURL.deletingLastPathComponent().appendingPathComponent("anna")
        guard FileManager.default.isExecutableFile(atPath: anna.path) else {
            throw BenchError.workspaceFailed(path: anna.path, reason: "no anna binary next to anna-bench: swift build -c release --product anna")
        }
        return anna
    }

    /// Writes the workload (the recording runs on the manager's own queues).
    func awaitWorkload(events: Int, in folder: URL) throws -> ReplayWorkload {
        let result = Locked<Result<ReplayWorkload, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                let workload = try await ReplayWorkload.write(events: events, in: folder)
                result.withLock { $0 = .success(workload) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        guard let outcome = result.withLock({ $0 }) else { throw BenchError.workspaceFailed(path: folder.path, reason: "no workload") }
        return try outcome.get()
    }

    // MARK: - Lines

    func header(_ scenario: String, _ variant: String) -> ReportLine {
        var line = ReportLine()
        line["scenario"] = .string(scenario)
        line["variant"] = .string(variant)
        line["profile"] = .string(profile.rawValue)
        return line
    }

    /// The figures every throughput line has: medians over `runs` and each run's events/s.
    private func addThroughput(_ runs: [ReportLine], to line: inout ReportLine) {
        let rates = runs.map(\.eventsPerSecond)
        let median = Stats.median(rates)
        line["nodes"] = runs[0]["nodes"]
        line["patterns"] = runs[0]["patterns"]
        line["events"] = runs[0]["events"]
        line["warmupEvents"] = runs[0]["warmupEvents"]
        line["results"] = runs[0]["results"]
        line["seconds"] = .rounded(Stats.median(runs.map { $0.number("seconds") }), 4)
        line["eventsPerSecond"] = .rounded(median)
        line["nsPerEvent"] = .rounded(1e9 / max(median, 1e-9), 1)
        line["recordNsPerEvent"] = .rounded(Stats.median(runs.map { $0.number("recordSeconds") * 1e9 / $0.number("events") }), 1)
        line["cpuNsPerEvent"] = .rounded(Stats.median(runs.map { $0.number("cpuSeconds") * 1e9 / $0.number("events") }), 1)
        line["recordCpuNsPerEvent"] = .rounded(Stats.median(runs.map { $0.number("recordCpuSeconds") * 1e9 / $0.number("events") }), 1)
        line["runs"] = .number(Double(runs.count))
        line["median"] = true
        line["allRuns"] = .array(rates.map { .rounded($0) })
        line["othersCpuShare"] = .rounded(runs.map { $0.number("othersCpuShare") }.max() ?? 0, 2)
        line["calibrationMs"] = MachineSpeed.field(runs.map { $0.number("calibrationMs") })
    }

    /// Above this share of the CPUs used by other processes, a run is marked noisy.
    static let noisyShare = 0.1

    /// `" (others used 35% of the CPUs)"` for a noisy raw line, else "".
    private static func noise(_ raw: ReportLine) -> String {
        let share = raw.number("othersCpuShare")
        return share > noisyShare ? " (other processes used \(Int((share * 100).rounded()))% of the CPUs)" : ""
    }
}

extension ReportLine {
    /// Events per second of a raw throughput line.
    fileprivate var eventsPerSecond: Double {
        number("events") / max(number("seconds"), 1e-9)
    }

    /// Resident bytes per registered node of a raw throughput line.
    fileprivate var bytesPerNode: Double {
        (number("rssAfterRegistration") - number("rssBeforeRegistration")) / max(number("registeredNodes"), 1)
    }
}
