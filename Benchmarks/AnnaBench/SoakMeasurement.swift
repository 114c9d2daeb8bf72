import Anna
import CoreJS
import Foundation

/// The W3 soak: W1 events on the W1 tree while screens come and go, sampling resident memory.
///
/// Every `churnEvery` events the manager is flushed (so the queue of unsent events stays
/// bounded and memory measures what the host and core keep, not a backlog) and one screen,
/// in turn, is detached and replaced by a fresh subtree with new analyzers. Every
/// `sampleEvery` events, after a flush, the resident memory is sampled. `seconds` is the
/// time spent recording and flushing the events, without the memory samples and the
/// replacements.
struct SoakMeasurement {
    var events: Int
    var churnEvery: Int
    var sampleEvery: Int

    /// Runs the soak and returns the samples.
    /// - Throws: ``BenchError`` when the module fails or the results are not the expected ones.
    func run() async throws -> ReportLine {
        let screens = HostTree.w1Screens
        let counter = ResultCounter()
        let rig = try await BenchRig(
            module: .bundled, tasks: TaskGenerator.source(.w1, screens: screens, patterns: 0), screens: screens,
            counter: counter, scenario: "W3 soak")
        let tree = rig.tree
        let cellCount = tree.cellAnalyzers.count  // replaceScreen keeps it

        var samples: [Double] = []
        var replaced = 0
        var nanoseconds: UInt64 = 0
        var gauges = SpanGauges.start()
        var k = 0
        while k < events {
            let end = min(events, (k / churnEvery + 1) * churnEvery, (k / sampleEvery + 1) * sampleEvery)
            // Timed: the record calls and the flush. Not timed: the memory sample and the
            // screen replacement (flushed on its own). The cells are read into a local array,
            // as W1 does, and released before replaceScreen changes the tree's (no copy).
            do {
                let cells = tree.cellAnalyzers
                let start = MonotonicClock.now()
                while k < end {
                    EventMix.record(k, on: cells[k % cellCount])
                    k += 1
                }
                await rig.manager.flush()
                nanoseconds += MonotonicClock.now() - start
            }
            if k % sampleEvery == 0 || k == events {
                samples.append(Double(try MemorySampler.residentBytes()))
            }
            if k % churnEvery == 0 && k < events {
                tree.replaceScreen(replaced % screens)
                replaced += 1
                await rig.manager.flush()
            }
        }
        gauges.stop()
        try rig.verify(EventMix.expectedResults(events: events), scenario: "W3 soak")

        var line = ReportLine()
        line["kind"] = "soak"
        line["nodes"] = .number(Double(tree.nodeCount))
        line["events"] = .number(Double(events))
        line["results"] = .number(Double(counter.snapshot.total))
        line["seconds"] = .number(Double(nanoseconds) / 1e9)
        line["screensReplaced"] = .number(Double(replaced))
        line["rssAfterRegistration"] = .number(Double(rig.registration.residentAfter))
        line["rssSamples"] = .array(samples.map(JSONValue.number))
        gauges.addFields(to: &line)
        return line
    }
}
