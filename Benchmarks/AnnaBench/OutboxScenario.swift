import Anna
import AnnaCollector
import AnnaOutbox
import BenchStats
import CoreJS
import Foundation

/// O1, the outbox: append throughput and per-append latency in kill-safe mode (a result
/// counts once committed to the write-ahead log), to an empty file and to one holding an
/// undelivered backlog (an app that was offline), and how fast a backlog drains to a
/// collector on loopback. Runs in this process (it measures the outbox, not the engine).
extension ScenarioRunner {
    /// Results appended per run (quick 200,000; full 1,000,000).
    var outboxAppends: Int { profile == .quick ? 200_000 : 1_000_000 }
    /// Results in the drained backlog (quick 100,000; full 1,000,000).
    var outboxBacklog: Int { profile == .quick ? 100_000 : 1_000_000 }
    /// Results waiting undelivered while `append-backlog` appends (quick 500,000; full
    /// 1,000,000, the row cap).
    var outboxAppendBacklog: Int { profile == .quick ? 500_000 : 1_000_000 }
    /// Results per transaction in `append-backlog`: about what the writer commits at a time
    /// at W1's rate (one result every 2 µs).
    static let burst = 1024

    func runOutbox() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("anna-bench-outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(at: folder) } catch { printError("warning: \(folder.path): \(error)") }
        }
        var runs: [(rate: Double, p50: Double, p99: Double, max: Double)] = []
        var spans: [SpanGauges] = []
        for run in 0..<sizes.runs {
            var span = SpanGauges.start()
            let path = folder.appendingPathComponent("append-\(run).sqlite").path
            runs.append(try measureAppends(path: path, count: outboxAppends))
            span.stop()
            spans.append(span)
            output.progress(
                "  O1 append run \(run + 1): \(Output.grouped(runs[run].rate)) results/s, p99 \(Output.milliseconds(runs[run].p99))"
            )
        }
        var append = header("O1", "append")
        append["results"] = .number(Double(outboxAppends))
        append["durability"] = "processKill"
        append["resultsPerSecond"] = .rounded(Stats.median(runs.map(\.rate)))
        append["p50Ms"] = .rounded(Stats.median(runs.map(\.p50)), 4)
        append["p99Ms"] = .rounded(Stats.median(runs.map(\.p99)), 4)
        append["maxMs"] = .rounded(Stats.median(runs.map(\.max)), 3)
        append["runs"] = .number(Double(runs.count))
        append["allRuns"] = .array(runs.map { .rounded($0.rate) })
        SpanGauges.addFields(of: spans, to: &append)
        append["guard"] = ["resultsPerSecond", "p99Ms"]
        output.emit(append)

        // In pairs, a transaction per burst: to an empty file, then to one holding the backlog.
        var paced: [(empty: Double, backlog: Double)] = []
        spans = []
        for run in 0..<sizes.runs {
            var span = SpanGauges.start()
            let empty = try measureAppends(
                path: folder.appendingPathComponent("paced-\(run).sqlite").path, count: outboxAppends, burst: Self.burst)
            let backlogPath = folder.appendingPathComponent("backlog-\(run).sqlite").path
            let onto = try measureAppends(path: backlogPath, count: outboxAppends, backlog: outboxAppendBacklog, burst: Self.burst)
            try FileManager.default.removeItem(atPath: backlogPath)  // hundreds of MB at the full size
            span.stop()
            spans.append(span)
            paced.append((empty.rate, onto.rate))
            output.progress(
                "  O1 append-backlog run \(run + 1): \(Output.grouped(onto.rate)) results/s, "
                    + "\(Output.grouped(empty.rate)) to an empty file")
        }
        var backlog = header("O1", "append-backlog")
        backlog["results"] = .number(Double(outboxAppends))
        backlog["backlog"] = .number(Double(outboxAppendBacklog))
        backlog["burst"] = .number(Double(Self.burst))
        backlog["resultsPerSecond"] = .rounded(Stats.median(paced.map(\.backlog)))
        backlog["emptyResultsPerSecond"] = .rounded(Stats.median(paced.map(\.empty)))
        backlog["relativeToEmpty"] = .rounded(Stats.median(paced.map { $0.backlog / $0.empty }), 3)
        backlog["runs"] = .number(Double(paced.count))
        SpanGauges.addFields(of: spans, to: &backlog)
        backlog["guard"] = ["resultsPerSecond", "relativeToEmpty"]
        output.emit(backlog)

        var span = SpanGauges.start()
        let (drainRate, requests) = try await measureDrain(folder: folder, count: outboxBacklog)
        span.stop()
        var drain = header("O1", "drain")
        drain["results"] = .number(Double(outboxBacklog))
        drain["requests"] = .number(Double(requests))
        drain["resultsPerSecond"] = .rounded(drainRate)
        SpanGauges.addFields(of: [span], to: &drain)
        drain["guard"] = ["resultsPerSecond"]
        output.emit(drain)
    }

    /// A result like W1's: a small object with its task, path and event.
    private static func sample(_ index: Int) -> AnalyticsResult {
        AnalyticsResult(
            value: ["screen": "detail", "index": .number(Double(index)), "ok": true],
            meta: ResultMeta(task: "master/table/cell/did-select", path: "/master/table/cell", event: "did-select"))
    }

    /// Appends `count` results as fast as one thread can, timing each call, then waits until
    /// they are committed: the rate is results over the time to the commit of the last.
    /// One thread appends several times faster than SQLite commits, so the in-memory queue is
    /// made large enough for the whole run: the figure is the writer's sustained rate, with
    /// no result dropped by back-pressure (which a real app hits only when it outruns it).
    /// With a `backlog`, that many results of another session are appended and written first,
    /// untimed: the file holds them undelivered while the timed ones are appended. With a
    /// `burst`, the appends wait for the writer after each `burst` results (a transaction each).
    private func measureAppends(path: String, count: Int, backlog: Int = 0, burst: Int? = nil) throws -> (
        rate: Double, p50: Double, p99: Double, max: Double
    ) {
        var configuration = OutboxConfiguration()
        configuration.maximumUnwrittenBytes = 4 << 30
        let outbox = try Outbox(path: path, configuration: configuration) { printError("anna-bench: \($0)") }
        defer { outbox.close() }
        let results = (0..<1024).map(Self.sample)
        for index in 0..<backlog { try outbox.append(results[index & 1023], session: "backlog", time: 0) }
        outbox.synchronize()
        var latencies = [Double](repeating: 0, count: count)
        let start = MonotonicClock.now()
        for index in 0..<count {
            let before = MonotonicClock.now()
            try outbox.append(results[index & 1023], session: "bench", time: 0)
            latencies[index] = MonotonicClock.seconds(from: before, to: MonotonicClock.now()) * 1000
            if let burst, (index + 1) % burst == 0 { outbox.synchronize() }
        }
        outbox.synchronize()
        let seconds = MonotonicClock.seconds(from: start, to: MonotonicClock.now())
        let stats = try outbox.stats()
        guard stats.pending == backlog + count, stats.dropped.isEmpty else {
            throw BenchError.measurementFailed(
                "O1 append: \(stats.pending - backlog) of \(count) results kept (backlog \(backlog)), dropped \(stats.dropped)")
        }
        latencies.sort()
        return (Double(count) / seconds, Stats.percentile(0.5, of: latencies), Stats.percentile(0.99, of: latencies), latencies[count - 1])
    }

    /// Fills an outbox with `count` results, then times a flush to a collector on loopback.
    private func measureDrain(folder: URL, count: Int) async throws -> (rate: Double, requests: Int) {
        var configuration = OutboxConfiguration()
        configuration.maximumUnwrittenBytes = 4 << 30
        let outbox = try Outbox(path: folder.appendingPathComponent("drain.sqlite").path, configuration: configuration) {
            printError("anna-bench: \($0)")
        }
        defer { outbox.close() }
        for index in 0..<count { try outbox.append(Self.sample(index), session: "drain", time: 0) }
        await outbox.waitUntilWritten()
        let collector = try Collector(
            configuration: CollectorConfiguration(storePath: folder.appendingPathComponent("collected.sqlite").path))
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let server = Task { try await collector.run { continuation.yield($0) } }
        let measured: Result<(rate: Double, requests: Int), any Error>
        do {
            var iterator = ports.makeAsyncIterator()
            let port = await iterator.next() ?? 0
            let uploader = try OutboxUploader(outbox: outbox, configuration: UploadConfiguration(url: "http://127.0.0.1:\(port)/"))
            let start = MonotonicClock.now()
            _ = await uploader.flush()
            let seconds = MonotonicClock.seconds(from: start, to: MonotonicClock.now())
            let delivered = uploader.tally.delivered
            guard delivered == count, try collector.store.count() == count else {
                throw BenchError.measurementFailed("O1 drain: \(delivered) of \(count) results delivered")
            }
            measured = .success((Double(delivered) / seconds, uploader.tally.requests))
        } catch {
            measured = .failure(error)
        }
        // The server lets go of the collector's file before the folder is removed.
        server.cancel()
        if case .failure(let error) = await server.result, !(error is CancellationError) {
            printError("anna-bench: O1 drain: the collector: \(error)")
        }
        return try measured.get()
    }
}
