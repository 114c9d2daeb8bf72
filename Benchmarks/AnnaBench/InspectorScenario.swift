import BenchStats
import CoreJS
import Foundation

/// I1, the inspector's cost: W1 without an inspector and W1 with one attached, served and
/// read by a client of its event stream, in interleaved pairs (so the machine's noise falls
/// on both alike); the ratio of their medians, and the time from an event's record call to
/// its result at that client.
extension ScenarioRunner {
    func runInspector() throws {
        let base = ["throughput", "--screens", "\(HostTree.w1Screens)", "--events", "\(sizes.w1Events)", "--tasks", TaskSet.w1.rawValue]
        var without: [ReportLine] = []
        var with: [ReportLine] = []
        for run in 1...sizes.runs {
            without.append(try ChildProcess.measure(base))
            with.append(try ChildProcess.measure(base + ["--inspector"]))
            output.progress(
                "I1 run \(run)/\(sizes.runs): \(Output.grouped(without[run - 1].i1EventsPerSecond)) events/s without an inspector, "
                    + "\(Output.grouped(with[run - 1].i1EventsPerSecond)) with one and a client; "
                    + "update p50 \(Output.milliseconds(with[run - 1].number("inspectorUpdateP50Ms")))")
        }
        let withoutRate = Stats.median(without.map(\.i1EventsPerSecond))
        let withRate = Stats.median(with.map(\.i1EventsPerSecond))
        var line = header("I1", "w1-with-inspector")
        line["events"] = .number(Double(sizes.w1Events))
        line["runs"] = .number(Double(sizes.runs))
        line["eventsPerSecondWithout"] = .rounded(withoutRate)
        line["eventsPerSecondWith"] = .rounded(withRate)
        line["relativeToWithout"] = .rounded(withRate / max(withoutRate, 1e-9), 4)
        line["pairRatios"] = .array(zip(with, without).map { .rounded($0.i1EventsPerSecond / max($1.i1EventsPerSecond, 1e-9), 4) })
        // CPU time (all threads, the server and its client included) is less disturbed by other
        // processes than elapsed time on a shared machine.
        let cpu = { (runs: [ReportLine]) in Stats.median(runs.map { $0.number("cpuSeconds") * 1e9 / $0.number("events") }) }
        line["cpuNsPerEventWithout"] = .rounded(cpu(without), 1)
        line["cpuNsPerEventWith"] = .rounded(cpu(with), 1)
        line["cpuRatio"] = .rounded(cpu(with) / max(cpu(without), 1e-9), 4)
        line["updateP50Ms"] = .rounded(Stats.median(with.map { $0.number("inspectorUpdateP50Ms") }), 2)
        line["updateMaxMs"] = .rounded(with.map { $0.number("inspectorUpdateMaxMs") }.max() ?? 0, 2)
        line["streamBytes"] = .rounded(Stats.median(with.map { $0.number("inspectorStreamBytes") }))
        line["othersCpuShare"] = .rounded((with + without).map { $0.number("othersCpuShare") }.max() ?? 0, 2)
        line["guard"] = ["relativeToWithout", "updateP50Ms"]
        output.emit(line)
    }
}

extension ReportLine {
    /// Events per second of a raw throughput line.
    fileprivate var i1EventsPerSecond: Double {
        number("events") / max(number("seconds"), 1e-9)
    }
}
