import Anna
import BenchStats
import CoreJS
import Foundation

/// The W4 latency run: W1 events offered at a fixed rate, each tagged with its sequence
/// number; the tagged tasks return it, and the delegate notes when each result arrived.
///
/// A warm-up of `warmup` events, recorded as fast as possible and flushed, lets the engine
/// compile the tasks first. Then event `i` falls due at `start + i / rate`: the producer
/// sleeps until the next event is due and records every event that is due by then (the
/// kernel's timer slack makes it wake in small bursts). Latency is measured from just
/// before each record call to the delegate callback of its result; events without a
/// result (`ana-appeared` and `scroll` on cells) load the pipeline but are not measured.
struct LatencyMeasurement {
    var rate: Double
    var seconds: Double
    var warmup: Int

    /// Runs once and returns the percentiles.
    /// - Throws: ``BenchError`` when the module fails or a result is missing.
    func run() async throws -> ReportLine {
        let screens = HostTree.w1Screens
        let offered = max(Int((rate * seconds).rounded()), 1)
        let total = warmup + offered
        let counter = ResultCounter(taggedCapacity: total)
        let rig = try await BenchRig(
            module: .bundled, tasks: TaskGenerator.source(.w1Tagged, screens: screens, patterns: 0), screens: screens,
            counter: counter, scenario: "W4 latency")
        let cells = rig.tree.cellAnalyzers

        for k in 0..<warmup {
            EventMix.recordTagged(k, seq: k, on: cells[k % cells.count])
        }
        await rig.manager.flush()

        var sent = [UInt64](repeating: 0, count: offered)
        let interval = 1e9 / rate
        var gauges = SpanGauges.start()
        let start = MonotonicClock.now() + 1_000_000
        var i = 0
        while i < offered {
            MonotonicClock.sleep(until: start + UInt64(Double(i) * interval))
            let now = MonotonicClock.now()
            repeat {
                let k = warmup + i
                sent[i] = MonotonicClock.now()
                EventMix.recordTagged(k, seq: k, on: cells[k % cells.count])
                i += 1
            } while i < offered && start + UInt64(Double(i) * interval) <= now
        }
        let lastSent = sent[offered - 1]
        await rig.manager.flush()
        gauges.stop()
        try rig.verify(EventMix.expectedResults(events: total), scenario: "W4 latency")

        let arrivals = counter.snapshot.arrivals
        var latencies: [Double] = []
        latencies.reserveCapacity(offered / 2)
        for i in 0..<offered {
            let k = warmup + i
            switch EventMix.kind(of: k) {
            case .select, .updated:
                guard arrivals[k] >= sent[i] else {
                    throw BenchError.wrongResultCount(
                        scenario: "W4 latency: no result for event \(k)", expected: EventMix.expectedResults(events: total),
                        got: counter.snapshot)
                }
                latencies.append(Double(arrivals[k] - sent[i]) / 1e6)
            case .appeared, .scroll:
                continue
            }
        }
        latencies.sort()

        var line = ReportLine()
        line["kind"] = "latency"
        line["rate"] = .number(rate)
        line["achievedRate"] = .number(Double(offered - 1) / max(MonotonicClock.seconds(from: sent[0], to: lastSent), 1e-9))
        line["seconds"] = .number(seconds)
        line["events"] = .number(Double(offered))
        line["measured"] = .number(Double(latencies.count))
        line["p50Ms"] = .number(Stats.percentile(0.50, of: latencies))
        line["p90Ms"] = .number(Stats.percentile(0.90, of: latencies))
        line["p99Ms"] = .number(Stats.percentile(0.99, of: latencies))
        line["p999Ms"] = .number(Stats.percentile(0.999, of: latencies))
        line["maxMs"] = .number(latencies.last ?? 0)
        gauges.addFields(to: &line)
        return line
    }
}
