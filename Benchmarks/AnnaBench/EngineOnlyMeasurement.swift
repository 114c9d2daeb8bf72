import Anna
import CoreJS
import Foundation

/// W1's JavaScript alone (`measure throughput --engine-only`): the bundled core and W1's
/// tasks in the embedded JavaScriptCore, driven from JavaScript by W1's tree and event mix
/// (`Benchmarks/node/w1-mix.js`, the driver the Node reference uses too). No analyzer, no
/// encoding, no bridge, no queues, no delivery: W1's CPU per event minus this one's is what
/// the host path adds.
///
/// The events run in one call on this thread, after the same untimed warm-up as W1; CPU is
/// the whole process's (JavaScriptCore's compiler and collector threads included), as in W1.
struct EngineOnlyMeasurement {
    /// Where `w1-mix.js` is looked for, relative to the working directory (the repository).
    static let mixPath = "Benchmarks/node/w1-mix.js"

    var screens: Int
    var events: Int
    var warmup: Int

    /// Runs the events and returns a raw throughput line (`events`, `warmupEvents`,
    /// `results`, `seconds`, `cpuSeconds`, `recordSeconds`, `recordCpuSeconds` and the gauges).
    /// - Throws: ``BenchError`` when the driver is missing, the core or a task throws, or the
    ///   results are not the count the mix implies.
    func run() throws -> ReportLine {
        let mix = URL(fileURLWithPath: Self.mixPath).standardizedFileURL
        guard FileManager.default.isReadableFile(atPath: mix.path) else {
            throw BenchError.unreadableFile(path: mix.path, reason: "run anna-bench from the repository's root")
        }
        let workspace = try ModuleWorkspace(bundledWithTasks: TaskGenerator.source(.w1, screens: screens, patterns: 0))
        // The core reads task files as events reach their namespaces: the folder must outlive the run.
        return try withExtendedLifetime(workspace) { try run(folder: workspace.moduleURL.standardizedFileURL.path, mix: mix) }
    }

    /// The run in the module folder `folder`, driven by the script `mix`.
    private func run(folder: String, mix: URL) throws -> ReportLine {
        // One call runs every event: the limit is the run's, not one event's.
        let configuration = RuntimeConfiguration(
            additionalAllowedRoots: [mix.deletingLastPathComponent()], executionTimeLimit: .seconds(3_600))
        let runtime = try configuration.makeRuntime(confinedTo: folder)
        let context = runtime.context
        let w1 = try runtime.require(mix.path, from: folder).invokeMethod(
            "prepare",
            [try runtime.require("anna", from: folder), context.makeValue(.string(folder + "/task")), context.makeValue(.number(Double(screens)))])
        let record = { (count: Int) throws -> JSONValue in
            try w1.invokeMethod("record", [context.makeValue(.number(0)), context.makeValue(.number(Double(count)))]).toJSON()
        }
        _ = try check(record(warmup), events: warmup)

        var gauges = SpanGauges.start()
        let start = MonotonicClock.now()
        let startCPU = MonotonicClock.threadCPUNow()
        let outcome = try record(events)
        let threadCPU = MonotonicClock.seconds(from: startCPU, to: MonotonicClock.threadCPUNow())
        let seconds = MonotonicClock.seconds(from: start, to: MonotonicClock.now())
        gauges.stop()
        let results = try check(outcome, events: events)

        var line = ReportLine()
        line["kind"] = "throughput"
        line["nodes"] = .number(Double(2 + screens * BenchScreen.nodeCount))
        line["patterns"] = .number(Double(TaskGenerator.patternCount(.w1, screens: screens, patterns: 0)))
        line["events"] = .number(Double(events))
        line["warmupEvents"] = .number(Double(warmup))
        line["results"] = .number(Double(results))
        line["seconds"] = .number(seconds)
        line["recordSeconds"] = .number(seconds)
        line["recordCpuSeconds"] = .number(threadCPU)
        line["cpuSeconds"] = .number(gauges.processSeconds)
        gauges.addFields(to: &line)
        return line
    }

    /// The results in `outcome` (what `record` returned); fails unless it has no errors and
    /// the results the mix implies.
    private func check(_ outcome: JSONValue, events: Int) throws -> Int {
        let number = { (key: String) -> Int in
            if case let .number(value)? = outcome[key] { return Int(value) }
            return -1
        }
        if number("errors") != 0 {
            throw BenchError.moduleErrors(
                scenario: "W1 engine-only", count: number("errors"), first: outcome["firstError"]?.stringValue ?? "(no message)")
        }
        let expected = EventMix.expectedResults(events: events).total
        guard number("results") == expected else {
            throw BenchError.measurementFailed("W1 engine-only: \(number("results")) results for \(events) events, expected \(expected)")
        }
        return expected
    }
}
