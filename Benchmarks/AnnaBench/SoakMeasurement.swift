import Anna
import CoreJS
import Foundation

/// The W3 soak: W1 events on the W1 tree while screens come and go, sampling resident memory.
///
/// Every `churnEvery` events the manager is flushed (so the queue of unsent events stays
/// bounded and memory measures what the host and core keep, not a backlog) and one screen,
/// in turn, is detached and replaced by a fresh subtree with new analyzers. Every
/// `sampleEvery` events, after a flush, the resident memory is sampled.
struct SoakMeasurement {
    var events: Int
    var churnEvery: Int
    var sampleEvery: Int

    /// Runs the soak and returns the samples.
    /// - Throws: ``BenchError`` when the module fails or the results are not the expected ones.
    func run() async throws -> ReportLine {
        let workspace = try ModuleWorkspace(bundledWithTasks: TaskGenerator.source(.w1, screens: HostTree.w1Screens, patterns: 0))
        let manager = Manager(moduleURL: workspace.moduleURL, dependency: workspace.dependency)
        let counter = ResultCounter()
        manager.delegate = counter
        let tree = HostTree(manager: manager)
        tree.addScreens(HostTree.w1Screens)
        await manager.flush()
        let registered = try MemorySampler.residentBytes()

        var samples: [Double] = []
        var replaced = 0
        let calibration = MachineSpeed.calibrate()
        let load = MachineLoad.Reading.now()
        let start = MonotonicClock.now()
        var k = 0
        while k < events {
            let end = min(events, (k / churnEvery + 1) * churnEvery, (k / sampleEvery + 1) * sampleEvery)
            let cells = tree.cellAnalyzers
            while k < end {
                EventMix.record(k, on: cells[k % cells.count])
                k += 1
            }
            await manager.flush()
            if k % sampleEvery == 0 || k == events {
                samples.append(Double(try MemorySampler.residentBytes()))
            }
            if k % churnEvery == 0 && k < events {
                tree.replaceScreen(replaced % HostTree.w1Screens)
                replaced += 1
            }
        }
        let seconds = MonotonicClock.seconds(from: start, to: MonotonicClock.now())
        let othersShare = MachineLoad.Reading.now().othersShare(since: load)
        try counter.verify(EventMix.expectedResults(events: events), scenario: "W3 soak")
        withExtendedLifetime((tree, workspace)) {}

        var line = ReportLine()
        line["kind"] = "soak"
        line["nodes"] = .number(Double(tree.nodeCount))
        line["events"] = .number(Double(events))
        line["results"] = .number(Double(counter.snapshot.total))
        line["seconds"] = .number(seconds)
        line["screensReplaced"] = .number(Double(replaced))
        line["rssAfterRegistration"] = .number(Double(registered))
        line["rssSamples"] = .array(samples.map(JSONValue.number))
        line["othersCpuShare"] = .number(othersShare)
        line["calibrationMs"] = .number(calibration)
        return line
    }
}
