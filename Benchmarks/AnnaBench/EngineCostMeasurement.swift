import Anna
import BenchStats
import CoreJS
import Foundation

/// W6's engine cost: what it takes to give one session an engine of its own.
///
/// A fresh engine is a new JavaScript context with the CommonJS runtime, the bridge, the
/// core and the module loaded, and its task files loaded by the first registration (as a
/// session's first line does); it is released after. A reset (``AnalyticsEngine/reset()``)
/// gives an engine in use the state of a fresh one instead. Each is timed `count` times
/// after `warmup` untimed ones; the medians are reported.
struct EngineCostMeasurement {
    /// Timed engines (and resets).
    var count: Int
    /// Untimed ones first.
    var warmup: Int

    /// Times fresh engines, then resets of one engine; each serves one small session.
    /// - Throws: ``BenchError`` when the module fails to load or a session's results are wrong.
    func run() throws -> ReportLine {
        let workspace = try ModuleWorkspace(bundledWithTasks: TaskGenerator.source(.w1, screens: HostTree.w1Screens, patterns: 0))
        var configuration = AnalyticsEngine.Configuration(
            moduleURL: workspace.moduleURL, console: Console(output: FileHandleOutputSink.standardError))
        configuration.resettable = true
        var results = 0
        let gauges = SpanGauges.start()
        var fresh: [Double] = []
        for round in 0..<(warmup + count) {
            let start = MonotonicClock.now()
            let engine = try makeEngine(configuration)
            results += try session(on: engine)
            _ = engine  // released here, inside the timed span
            let end = MonotonicClock.now()
            if round >= warmup { fresh.append(MonotonicClock.seconds(from: start, to: end)) }
        }
        let reused = try makeEngine(configuration)
        results += try session(on: reused)
        var resets: [Double] = []
        var sessions: [Double] = []
        for round in 0..<(warmup + count) {
            let start = MonotonicClock.now()
            do {
                try reused.reset()
            } catch {
                throw BenchError.moduleErrors(scenario: "engine cost (reset)", count: 1, first: "\(error)")
            }
            let reset = MonotonicClock.now()
            results += try session(on: reused)
            let end = MonotonicClock.now()
            if round >= warmup {
                resets.append(MonotonicClock.seconds(from: start, to: reset))
                sessions.append(MonotonicClock.seconds(from: reset, to: end))
            }
        }
        let expected = 2 * (warmup + count) + 1
        guard results == expected else {
            throw BenchError.moduleErrors(
                scenario: "engine cost", count: 1, first: "expected \(expected) results (one per session), got \(results)")
        }
        var line = ReportLine()
        line["kind"] = "engine-cost"
        line["engines"] = .number(Double(count))
        line["freshEngineMs"] = .number(Stats.median(fresh) * 1e3)
        line["resetEngineMs"] = .number(Stats.median(resets) * 1e3)
        line["sessionAfterResetMs"] = .number(Stats.median(sessions) * 1e3)
        line["results"] = .number(Double(results))
        var finished = gauges
        finished.stop()
        finished.addFields(to: &line)
        return line
    }

    private func makeEngine(_ configuration: AnalyticsEngine.Configuration) throws -> AnalyticsEngine {
        do {
            return try AnalyticsEngine(configuration: configuration)
        } catch {
            throw BenchError.moduleErrors(scenario: "engine cost", count: 1, first: "\(error)")
        }
    }

    /// The smallest session that loads the task files: the root and the app registered, one
    /// screen appearing (one result).
    /// - Returns: How many results it produced.
    private func session(on engine: AnalyticsEngine) throws -> Int {
        do {
            var results = try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__").count
            results += try engine.registerNode(id: NodeID(2), parent: NodeID(1), name: "app").count
            results += try engine.registerNode(id: NodeID(3), parent: NodeID(2), name: "screen0").count
            results += try engine.recordEvent(name: "ana-appeared", nodeID: NodeID(3)).count
            return results
        } catch {
            throw BenchError.moduleErrors(scenario: "engine cost", count: 1, first: "\(error)")
        }
    }
}
