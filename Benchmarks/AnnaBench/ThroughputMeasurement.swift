import Anna
import BenchStats
import CoreJS
import Foundation

/// One throughput run (W1, W2, `--module`): register a tree, then record the W1 event mix
/// and time it from the first record call until the last result reached the delegate.
///
/// Order of a run:
/// 1. Load the module by registering `__root__` and `app`; flush.
/// 2. Read the resident memory, register the screens (timed), flush, read it again: the
///    registration time and memory per node.
/// 3. Record `warmup` events of the same mix and flush (untimed): JavaScriptCore's
///    optimizing compilers finish meanwhile.
/// 4. With an outbox (``OutboxAttachment``), wait until it has written the warm-up's results.
///    Read the resident memory and start its peak over; time the machine gauge (``MachineSpeed``).
/// 5. Start the clock, record every event on its cell through the public API, flush,
///    take the delegate's time of the last result, and check the result count. The share
///    of the CPUs other processes used meanwhile is reported too (``MachineLoad``).
/// 6. With an outbox, time how long it takes to write what is still queued (`catchUpSeconds`;
///    its uploaders, with ``outboxUploaders``, deliver meanwhile and are stopped then) and check
///    that every result was written or counted as dropped by back-pressure. The
///    peak resident memory over steps 5 and 6 is reported as growth over step 4's.
struct ThroughputMeasurement {
    /// Screens in the tree (22 nodes each, plus `__root__` and `app`).
    var screens: Int
    /// The task set and, for ``TaskSet/scale``, its pattern count.
    var tasks: TaskSet
    var patterns: Int
    /// Events to record.
    var events: Int
    /// Events recorded before, untimed.
    var warmup: Int
    /// Whether events go to every cell of the tree instead of the first ``EventMix/cells``.
    var everyCell: Bool
    /// Where the module comes from.
    var module: ModuleChoice
    /// Whether every result is also appended to an outbox (W1's `outbox` variant).
    var outbox = false
    /// With ``outbox``: two destinations, each with an uploader running to a loopback receiver
    /// (W1's `destinations=2` variant; ``OutboxAttachment``).
    var outboxUploaders = false
    /// Whether an inspector is attached, served, and read by a client of its event stream
    /// (I1); the run then also times ``inspectorProbes`` events from record to that client.
    var inspector = false
    /// Events whose result is timed to the inspector's client after the run.
    static let inspectorProbes = 20
    /// Threads recording the timed events at once on the one manager (thread `t` records
    /// events `t`, `t + threads`, …); 1 records them all on the measuring thread.
    var threads = 1

    /// Records events `0..<events` from `threads` threads started together (thread `t`
    /// records every `threads`th event from `t`) and returns their CPU seconds added up.
    private static func record(events: Int, on cells: [any Analyzing], cellCount: Int, threads: Int) -> Double {
        let started = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let cpu = Locked(0.0)
        for first in 0..<threads {
            started.enter()
            finished.enter()
            let thread = Thread {
                started.leave()
                go.wait()
                let before = MonotonicClock.threadCPUNow()
                for k in stride(from: first, to: events, by: threads) {
                    EventMix.record(k, on: cells[k % cellCount])
                }
                let seconds = MonotonicClock.seconds(from: before, to: MonotonicClock.threadCPUNow())
                cpu.withLock { $0 += seconds }
                finished.leave()
            }
            thread.start()
        }
        started.wait()
        for _ in 0..<threads { go.signal() }
        finished.wait()
        return cpu.withLock { $0 }
    }

    /// Runs once and returns the raw figures.
    /// - Throws: ``BenchError`` when the module fails or the results are not the expected ones.
    func run() async throws -> ReportLine {
        let warmupResults = EventMix.expectedResults(events: warmup)
        let timedResults = EventMix.expectedResults(events: events)
        let expected = warmupResults + timedResults
        let counter = ResultCounter(expectedTotal: expected.total)
        let scenario = "throughput (\(tasks.rawValue), \(screens) screens)"
        let outboxAttachment = outbox || outboxUploaders ? try await OutboxAttachment(uploaders: outboxUploaders) : nil
        let inspectorAttachment = inspector ? try await InspectorAttachment.start() : nil
        let rig = try await BenchRig(
            module: module, tasks: TaskGenerator.source(tasks, screens: screens, patterns: patterns), screens: screens,
            counter: counter, scenario: scenario, outbox: outboxAttachment?.sink, inspector: inspectorAttachment?.inspector)
        let registered = screens * BenchScreen.nodeCount

        let cells = rig.tree.cellAnalyzers
        let cellCount = everyCell ? cells.count : min(cells.count, EventMix.cells)
        for k in 0..<warmup {
            EventMix.record(k, on: cells[k % cellCount])
        }
        await rig.manager.flush()
        try rig.verify(warmupResults, scenario: scenario + " during the warm-up")
        outboxAttachment?.outbox.synchronize()
        let residentBeforeEvents = try MemorySampler.residentBytes()
        try MemorySampler.resetPeak()
        var gauges = SpanGauges.start()
        let deliveredBefore = outboxAttachment?.delivered ?? [:]
        let start = MonotonicClock.now()
        let startCPU = MonotonicClock.threadCPUNow()
        let recordCPU: Double
        if threads > 1 {
            recordCPU = Self.record(events: events, on: cells, cellCount: cellCount, threads: threads)
        } else {
            for k in 0..<events {
                EventMix.record(k, on: cells[k % cellCount])
            }
            recordCPU = MonotonicClock.seconds(from: startCPU, to: MonotonicClock.threadCPUNow())
        }
        let recorded = MonotonicClock.now()
        await rig.manager.flush()
        gauges.stop()
        let delivered = MonotonicClock.now()
        let deliveredTimed = outboxAttachment?.delivered ?? [:]
        outboxAttachment?.outbox.synchronize()
        let caughtUp = MonotonicClock.now()
        await outboxAttachment?.stopUploaders()
        let peakResident = try MemorySampler.peakResidentBytes()
        let tally = counter.snapshot
        try rig.verify(expected, scenario: scenario)

        var line = ReportLine()
        line["kind"] = "throughput"
        line["nodes"] = .number(Double(rig.tree.nodeCount))
        line["patterns"] = .number(Double(TaskGenerator.patternCount(tasks, screens: screens, patterns: patterns)))
        line["cellsWithEvents"] = .number(Double(cellCount))
        line["events"] = .number(Double(events))
        line["warmupEvents"] = .number(Double(warmup))
        line["results"] = .number(Double(timedResults.total))  // what verify(expected) found
        line["seconds"] = .number(MonotonicClock.seconds(from: start, to: tally.lastResultAt))
        line["recordSeconds"] = .number(MonotonicClock.seconds(from: start, to: recorded))
        line["recordCpuSeconds"] = .number(recordCPU)
        line["threads"] = .number(Double(threads))
        line["registeredNodes"] = .number(Double(registered))
        line["registrationSeconds"] = .number(rig.registration.seconds)
        line["rssBeforeRegistration"] = .number(Double(rig.registration.residentBefore))
        line["rssAfterRegistration"] = .number(Double(rig.registration.residentAfter))
        line["cpuSeconds"] = .number(gauges.processSeconds)
        line["peakGrowthBytes"] = .number(Double(max(0, peakResident - residentBeforeEvents)))
        if let outboxAttachment {
            let outcome = try outboxAttachment.verify(total: expected.total)
            line["outboxWritten"] = .number(Double(outcome.written))
            line["outboxDropped"] = .number(Double(outcome.dropped))
            line["backpressureEpisodes"] = .number(Double(outboxAttachment.sink.backpressureEpisodes))
            line["catchUpSeconds"] = .number(MonotonicClock.seconds(from: delivered, to: caughtUp))
            if !outboxAttachment.deliveries.isEmpty {
                line["outboxCapDropRows"] = .number(Double(outcome.capDropRows))
                let timedSeconds = MonotonicClock.seconds(from: start, to: delivered)
                for delivery in outboxAttachment.deliveries {
                    let name = delivery.name
                    let during = (deliveredTimed[name] ?? 0) - (deliveredBefore[name] ?? 0)
                    line["delivered.\(name)"] = .number(Double(delivery.uploader.tally.delivered))
                    line["deliveredPerSecond.\(name)"] = .number(Double(during) / max(timedSeconds, 1e-9))
                    line["requests.\(name)"] = .number(Double(delivery.uploader.tally.requests))
                    line["wireBytes.\(name)"] = .number(Double(delivery.receiver.counts.wireBytes))
                }
            }
        }
        gauges.addFields(to: &line)
        if let inspectorAttachment {
            try await probe(inspectorAttachment, rig: rig, cells: Array(cells.prefix(cellCount)), from: warmup + events, into: &line)
        }
        return line
    }

    /// Records events after the run, one at a time, and times each result from the record
    /// call until the inspector's client holds it: `inspectorUpdateP50Ms`, `inspectorUpdateMaxMs`.
    private func probe(_ attachment: InspectorAttachment, rig: BenchRig, cells: [any Analyzing], from first: Int, into line: inout ReportLine)
        async throws
    {
        var latencies: [Double] = []
        var total = rig.counter.snapshot.total
        var k = first
        while latencies.count < Self.inspectorProbes, k < first + 100 * Self.inspectorProbes {
            let start = MonotonicClock.now()
            EventMix.record(k, on: cells[k % cells.count])
            k += 1
            await rig.manager.flush()
            let now = rig.counter.snapshot.total
            guard now > total else { continue }  // an event of the mix without a result
            latencies.append(try await attachment.updateLatency(after: start, target: now))
            total = now
            try await Task.sleep(for: .milliseconds(37))  // probes fall on different points of the stream's tick
        }
        line["inspectorUpdateP50Ms"] = .number(Stats.median(latencies))
        line["inspectorUpdateMaxMs"] = .number(latencies.max() ?? 0)
        line["inspectorStreamBytes"] = .number(Double(attachment.bytesRead))
        try await attachment.stop()
    }
}
