import Foundation

/// W1's reference: the original core (coppercash/Anna) on Node, in-process, over W1's tree,
/// tasks and event mix (`Benchmarks/node/w1-original.js`), in a child process. No stream
/// and no parsing: the driver calls the core's manager as a host does.
///
/// The driver times its own events (after the same warm-up as W1) and reads its own CPU time
/// (`process.cpuUsage`), so Node's start, the core's load and the tree's registration are
/// not in the figures, as they are not in W1's. It fails unless the results are the count
/// the mix implies.
struct NodeW1Measurement {
    /// Node and the original core, as W5 finds them.
    var original: ReplayMeasurement.NodeOriginal
    /// The W1 driver, beside W5's.
    var driver: URL { original.driver.deletingLastPathComponent().appendingPathComponent("w1-original.js") }

    /// Runs the driver once on W1's tasks in `taskFolder` and returns a raw throughput line
    /// (`events`, `warmupEvents`, `results`, `seconds`, `cpuSeconds`, `othersCpuShare`).
    /// - Throws: ``BenchError`` when Node fails, prints no figures or gives the wrong results.
    func run(taskFolder: URL, screens: Int, events: Int, warmup: Int) throws -> ReportLine {
        let arguments = [
            driver.path, "--core", original.core.path, "--tasks", taskFolder.path, "--screens", "\(screens)", "--events",
            "\(events)", "--warmup", "\(warmup)",
        ]
        let before = MachineLoad.Reading.now()
        let childrenBefore = ReplayMeasurement.childrenCPUSeconds()
        var line = try ChildProcess.lastLine(of: original.node, arguments, source: "the output of \(driver.lastPathComponent)")
        let after = MachineLoad.Reading.now()
        // Others: the machine's busy time beyond this process and the child, over all CPUs.
        let wall = MonotonicClock.seconds(from: before.wallNanoseconds, to: after.wallNanoseconds)
        let childCPU = ReplayMeasurement.childrenCPUSeconds() - childrenBefore
        let busy = after.othersShare(since: before) * wall * Double(MachineLoad.cpuCount)
        line["othersCpuShare"] = .number(min(1, max(0, busy - childCPU) / max(wall * Double(MachineLoad.cpuCount), 1e-9)))
        line["nodes"] = .number(Double(2 + screens * BenchScreen.nodeCount))
        line["patterns"] = .number(Double(TaskGenerator.patternCount(.w1, screens: screens, patterns: 0)))
        return line
    }
}
