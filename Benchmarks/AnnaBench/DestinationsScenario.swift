import Anna
import AnnaOutbox
import BenchStats
import CoreJS
import Foundation

/// `destinations`: how fast an outbox's backlog goes out in each delivery format, to a
/// ``LoopbackReceiver`` that answers as the vendor would. Each measurement fills a fresh outbox
/// (one destination named after the format) with W1's results, untimed, then times
/// ``OutboxUploader/flush(timeout:)`` until nothing waits. The formats run in a different order
/// each round (rotated), so the machine's slow moments fall on all of them alike; lines give
/// medians, and each vendor format's rate over Anna's own in the same round (`relativeToAnna`).
/// Runs in this process (it measures the uploader, not the engine), as O1 does.
extension ScenarioRunner {
    /// The formats, in the first round's order.
    static let destinationFormats: [(format: DeliveryFormat, reply: DeliveryReply)] = [
        (.anna, .anna), (.segment, .segment), (.posthog, .posthog), (.amplitude, .amplitude), (.webhook, .webhook),
    ]

    /// One flush.
    private struct DestinationRun {
        var seconds: Double
        var cpuSeconds: Double
        var othersShare: Double
        var requests: Int
        var headBytes: Int
        var bodyBytes: Int
        var wireBytes: Int
        var rate: Double { Double(count) / seconds }
        var count: Int
    }

    func runDestinations() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("anna-bench-destinations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(at: folder) } catch { printError("warning: \(folder.path): \(error)") }
        }
        var receivers: [LoopbackReceiver] = []
        for entry in Self.destinationFormats { receivers.append(try await LoopbackReceiver.start(reply: entry.reply)) }
        do {
            try await measureDestinations(receivers: receivers, folder: folder)
        } catch {
            for receiver in receivers { await receiver.stop() }
            throw error
        }
        for receiver in receivers { await receiver.stop() }
    }

    /// Each format's flushes to its receiver, rounds rotated, then one line per format.
    private func measureDestinations(receivers: [LoopbackReceiver], folder: URL) async throws {
        let count = sizes.destinationResults
        let rounds = sizes.destinationRounds
        let calibrationMs = MachineSpeed.calibrate()
        var runs: [[DestinationRun]] = Array(repeating: [], count: Self.destinationFormats.count)
        for round in 0..<rounds {
            let formats = Self.destinationFormats.count
            let order: [Int] = (0..<formats).map { ($0 + round) % formats }
            var message: [String] = []
            for position in order {
                let format = Self.destinationFormats[position].format
                let path = folder.appendingPathComponent("\(format.rawValue)-\(round).sqlite").path
                let run = try await measureDestination(format, receiver: receivers[position], path: path, count: count)
                for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
                    do { try FileManager.default.removeItem(atPath: file) } catch { printError("warning: \(file): \(error)") }
                }
                runs[position].append(run)
                message.append("\(format.rawValue) \(Output.grouped(run.rate))")
            }
            let share = runs.compactMap(\.last).map(\.othersShare).max() ?? 0
            output.progress(
                "destinations round \(round + 1)/\(rounds): " + message.joined(separator: ", ") + " results/s"
                    + (share > Self.noisyShare ? " (other processes used \(Int((share * 100).rounded()))% of the CPUs)" : ""))
        }
        let annaRates = runs[0].map(\.rate)
        for (position, entry) in Self.destinationFormats.enumerated() {
            let runs = runs[position]
            var line = header("destinations", "format=\(entry.format.rawValue)")
            line["format"] = .string(entry.format.rawValue)
            line["results"] = .number(Double(count))
            line["requests"] = .number(Double(runs[0].requests))
            line["resultsPerRequest"] = .rounded(Double(count) / Double(max(runs[0].requests, 1)), 1)
            line["seconds"] = .rounded(Stats.median(runs.map(\.seconds)), 4)
            line["resultsPerSecond"] = .rounded(Stats.median(runs.map(\.rate)))
            line["cpuUsPerResult"] = .rounded(Stats.median(runs.map { $0.cpuSeconds * 1e6 / Double(count) }), 2)
            line["bodyBytesPerResult"] = .rounded(Stats.median(runs.map { Double($0.bodyBytes) / Double(count) }), 1)
            line["wireBytesPerResult"] = .rounded(Stats.median(runs.map { Double($0.wireBytes) / Double(count) }), 1)
            line["headBytesPerRequest"] = .rounded(Stats.median(runs.map { Double($0.headBytes) / Double(max($0.requests, 1)) }), 1)
            line["runs"] = .number(Double(runs.count))
            line["median"] = true
            line["allRuns"] = .array(runs.map { .rounded($0.rate) })
            if position > 0 {
                line["relativeToAnna"] = .rounded(Stats.median(zip(runs.map(\.rate), annaRates).map { $0 / $1 }), 3)
            }
            line["othersCpuShare"] = .rounded(runs.map(\.othersShare).max() ?? 0, 2)
            line["calibrationMs"] = .rounded(calibrationMs, 2)
            // The CPU time per result is guarded, not the rate: the rate of 50 requests moves by
            // half from one run to the next on the shared machine, the CPU time much less.
            line["guard"] = ["cpuUsPerResult", "wireBytesPerResult"]
            output.emit(line)
        }
    }

    /// Fills an outbox at `path` with `count` results for one destination named after `format`,
    /// then times a flush of it to `receiver`.
    private func measureDestination(_ format: DeliveryFormat, receiver: LoopbackReceiver, path: String, count: Int)
        async throws -> DestinationRun
    {
        var configuration = OutboxConfiguration()
        configuration.maximumUnwrittenBytes = 4 << 30
        configuration.destinations = [format.rawValue]
        let outbox = try Outbox(path: path, configuration: configuration) { printError("anna-bench: \($0)") }
        defer { outbox.close() }
        let samples = (0..<1000).map(W1Results.result)
        for index in 0..<count {
            try outbox.append(samples[index % samples.count], session: "destinations", time: W1Results.time(index))
        }
        await outbox.waitUntilWritten()

        var upload = UploadConfiguration(url: receiver.url, format: format)
        upload.destination = format.rawValue
        if format != .anna && format != .webhook { upload.apiKey = "anna-bench-key" }
        let uploader = try OutboxUploader(outbox: outbox, configuration: upload)
        let before = receiver.counts
        let load = MachineLoad.Reading.now()
        let outcome = await uploader.flush()
        let after = MachineLoad.Reading.now()
        let counts = receiver.counts
        let tally = uploader.tally
        let left = try outbox.stats()
        guard outcome == .empty, tally.delivered == count, tally.deadLettered == 0, left.pending == 0, left.dropped.isEmpty,
            counts.requests - before.requests == tally.requests
        else {
            throw BenchError.measurementFailed(
                "destinations \(format.rawValue): \(outcome); delivered \(tally.delivered) of \(count), set aside "
                    + "\(tally.deadLettered), \(left.pending) left, dropped \(left.dropped); \(tally.requests) requests sent, "
                    + "\(counts.requests - before.requests) received; last failure: \(tally.lastFailure ?? "none")")
        }
        if before.requests == 0 { try Self.checkShape(counts.firstBody ?? [], format: format) }
        return DestinationRun(
            seconds: after.seconds(since: load), cpuSeconds: after.processSeconds(since: load), othersShare: after.othersShare(since: load),
            requests: tally.requests, headBytes: counts.headBytes - before.headBytes, bodyBytes: counts.bodyBytes - before.bodyBytes,
            wireBytes: counts.wireBytes - before.wireBytes, count: count)
    }

    /// Throws unless `body` is JSON with a non-empty array of events where the vendor expects it.
    private static func checkShape(_ body: [UInt8], format: DeliveryFormat) throws {
        let key = format == .amplitude ? "events" : "batch"
        let value: JSONValue
        do {
            value = try body.withUnsafeBufferPointer { try JSONValue(parsingUTF8: $0) }
        } catch {
            throw BenchError.measurementFailed("destinations \(format.rawValue): the first body is not JSON: \(error)")
        }
        guard let events = value.objectValue?[key]?.arrayValue, !events.isEmpty else {
            throw BenchError.measurementFailed(
                "destinations \(format.rawValue): the first body has no \"\(key)\" array: \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
    }
}

/// Results as W1's tasks make them, for outboxes filled without an engine: `did-select` on a
/// cell (`{action:'selected', id, i}`) and `ana-updated` (`'v0'`…`'v7'`), alternately, over
/// W1's 50 screens and 20 cells each.
enum W1Results {
    /// The `index`th result.
    static func result(_ index: Int) -> AnalyticsResult {
        let cell = index / 2 % EventMix.cells
        let screen = cell / BenchScreen.cellCount
        let path = "/app/screen\(screen)/list/cell"
        if index % 2 == 0 {
            return AnalyticsResult(
                value: ["action": "selected", "id": .string(path), "i": .number(Double(cell % BenchScreen.cellCount))],
                meta: ResultMeta(task: "screen\(screen)/list/cell/did-select", path: path, event: "did-select"))
        }
        return AnalyticsResult(
            value: .string(EventMix.values[index / 2 % EventMix.values.count]),
            meta: ResultMeta(task: "cell/ana-updated", path: path, event: "ana-updated"))
    }

    /// The event time of the `index`th result: one every millisecond from a fixed instant
    /// (one analytics session; vendors get real timestamps).
    static func time(_ index: Int) -> Double {
        1_750_000_000_000 + Double(index)
    }
}

extension MachineLoad.Reading {
    /// Wall-clock seconds since `start`.
    func seconds(since start: MachineLoad.Reading) -> Double {
        MonotonicClock.seconds(from: start.wallNanoseconds, to: wallNanoseconds)
    }
}
