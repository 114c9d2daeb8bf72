import BenchStats
import CoreJS
import Foundation

/// W6, bulk replay: `anna replay` over many generated sessions, with one job and with two
/// (run as interleaved pairs, medians), and the engine cost per session.
///
/// Each session is an NDJSON stream of W1's kind: `__root__`, `app`, two screens with a list
/// of 20 cells each (46 registrations), then ``eventsPerSession`` events of W1's mix
/// (``EventMix``) on the 40 cells; the tasks are W1's (101 patterns), so each session gives
/// 500 results. The `anna` binary beside `anna-bench` replays them (`make bench-build`
/// builds both).
extension ScenarioRunner {
    /// Events per generated session.
    static let eventsPerSession = 1_000
    /// Screens per generated session.
    static let screensPerSession = 2

    /// Sessions per W6 run: 1,000 in the full profile, 200 in the quick one.
    var bulkSessions: Int { profile == .full ? 1_000 : 200 }

    func runW6() throws {
        let anna = ChildProcess.executableURL.deletingLastPathComponent().appendingPathComponent("anna")
        guard FileManager.default.isExecutableFile(atPath: anna.path) else {
            throw BenchError.workspaceFailed(
                path: anna.path, reason: "W6 runs the anna binary beside anna-bench: swift build -c release --product anna")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("anna-bench-w6-\(getpid())", isDirectory: true)
        defer {
            do { try FileManager.default.removeItem(at: folder) } catch { printError("warning: \(folder.path): \(error)") }
        }
        try Self.writeBulkWorkspace(in: folder, sessions: bulkSessions)
        let expectedResults = EventMix.expectedResults(events: Self.eventsPerSession).total

        var rates: [Int: [Double]] = [1: [], 2: []]
        var cpuRates: [Int: [Double]] = [1: [], 2: []]
        var shares: [Double] = []
        var ratios: [Double] = []
        var gauges: [Double] = []
        for run in 1...sizes.runs {
            gauges.append(MachineSpeed.calibrate())
            var pair: [Int: Double] = [:]
            for jobs in [1, 2] {
                let measured = try Self.replay(
                    anna: anna, in: folder, out: "out-\(run)-\(jobs)", jobs: jobs, sessions: bulkSessions, expectedResults: expectedResults)
                pair[jobs] = measured.sessionsPerSecond
                rates[jobs, default: []].append(measured.sessionsPerSecond)
                cpuRates[jobs, default: []].append(measured.sessionsPerCPUSecond)
                shares.append(measured.othersShare)
                output.progress(
                    "W6 run \(run)/\(sizes.runs) jobs=\(jobs): \(Output.grouped(measured.sessionsPerSecond)) sessions/s, "
                        + "\(Output.grouped(measured.sessionsPerCPUSecond)) per CPU second"
                        + (measured.othersShare > Self.noisyShare ? " (other processes used \(Int(measured.othersShare * 100))% of the CPUs)" : ""))
            }
            ratios.append((pair[2] ?? 0) / max(pair[1] ?? 1, 1e-9))
        }
        for jobs in [1, 2] {
            var line = bulkHeader("jobs=\(jobs)")
            line["sessions"] = .number(Double(bulkSessions))
            line["eventsPerSession"] = .number(Double(Self.eventsPerSession))
            line["resultsPerSession"] = .number(Double(expectedResults))
            let median = Stats.median(rates[jobs] ?? [])
            line["sessionsPerSecond"] = .rounded(median, 1)
            line["sessionsPerCpuSecond"] = .rounded(Stats.median(cpuRates[jobs] ?? []), 1)
            line["runs"] = .number(Double(sizes.runs))
            line["median"] = true
            line["allRuns"] = .array((rates[jobs] ?? []).map { .rounded($0, 1) })
            if jobs == 2 {
                line["speedupOverOneJob"] = .rounded(Stats.median(ratios), 3)
                line["allSpeedups"] = .array(ratios.map { .rounded($0, 3) })
            }
            line["othersCpuShare"] = .rounded(shares.max() ?? 0, 2)
            line["calibrationMs"] = MachineSpeed.field(gauges)
            // The wall-clock rates and the speedup depend on the CPUs other processes leave;
            // sessions per CPU second (the child's user and system time) does not.
            line["guard"] = ["sessionsPerCpuSecond"]
            output.emit(line)
        }
        let cost = try Self.measureBulk(["engine-cost"])
        var line = bulkHeader("engine-cost")
        line["engines"] = cost["engines"]
        line["freshEngineMs"] = .rounded(cost.number("freshEngineMs"), 3)
        line["resetEngineMs"] = .rounded(cost.number("resetEngineMs"), 3)
        line["sessionAfterResetMs"] = .rounded(cost.number("sessionAfterResetMs"), 3)
        line["othersCpuShare"] = .rounded(cost.number("othersCpuShare"), 2)
        line["calibrationMs"] = .rounded(cost.number("calibrationMs"), 2)
        line["guard"] = ["resetEngineMs"]
        output.progress(
            "W6 engine cost: fresh \(Output.milliseconds(cost.number("freshEngineMs"))), reset \(Output.milliseconds(cost.number("resetEngineMs")))")
        output.emit(line)
    }

    private func bulkHeader(_ variant: String) -> ReportLine {
        var line = ReportLine()
        line["scenario"] = "W6"
        line["variant"] = .string(variant)
        line["profile"] = .string(profile.rawValue)
        return line
    }

    /// One `anna replay` of every session with `jobs` jobs: sessions per second (wall clock of
    /// the child, from start to exit), per CPU second of the child, and the share of the CPUs
    /// neither it nor this process used.
    ///
    /// Each run writes to a new folder `name` and nothing is deleted until the end: on ext4,
    /// files made soon after many were deleted cost the kernel a scan of the deleted inodes
    /// (`recently_deleted`), up to a fifth of a run's time, none of it the replay's.
    private static func replay(anna: URL, in folder: URL, out name: String, jobs: Int, sessions: Int, expectedResults: Int) throws
        -> (sessionsPerSecond: Double, sessionsPerCPUSecond: Double, othersShare: Double)
    {
        let out = folder.appendingPathComponent(name)
        let arguments = [
            "replay", folder.appendingPathComponent("sessions").path, "--tasks", folder.appendingPathComponent("task").path,
            "--out", out.path, "--jobs", "\(jobs)", "--summary-json", folder.appendingPathComponent("summary.json").path,
        ]
        let process = Process()
        process.executableURL = anna
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        var usageBefore = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usageBefore)
        let before = MachineLoad.Reading.now()
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let after = MachineLoad.Reading.now()
        var usageAfter = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usageAfter)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError.childFailed(arguments: arguments, status: process.terminationStatus, output: String(decoding: stderr, as: UTF8.self))
        }
        let summary = try ReportLine(
            parsing: String(contentsOf: folder.appendingPathComponent("summary.json"), encoding: .utf8), source: "the replay summary")
        let done = summary["done"]?.arrayValue?.count ?? 0
        let results = Int(summary.number("results"))
        guard done == sessions, results == sessions * expectedResults else {
            throw BenchError.moduleErrors(
                scenario: "W6 jobs=\(jobs)", count: sessions - done,
                first: "\(done) of \(sessions) sessions done, \(results) results (expected \(sessions * expectedResults))")
        }
        let wall = MonotonicClock.seconds(from: before.wallNanoseconds, to: after.wallNanoseconds)
        let childSeconds = seconds(usageAfter) - seconds(usageBefore)
        let busy = Double(after.machineBusyTicks - before.machineBusyTicks) / MachineLoad.ticksPerSecond
        let own = Double(after.processTicks - before.processTicks) / MachineLoad.ticksPerSecond
        let others = max(0, busy - own - childSeconds) / max(wall * Double(MachineLoad.cpuCount), 1e-9)
        return (Double(sessions) / max(wall, 1e-9), Double(sessions) / max(childSeconds, 1e-9), min(1, others))
    }

    private static func seconds(_ usage: rusage) -> Double {
        Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Runs `anna-bench measure-bulk arguments…` and reads its JSON line.
    private static func measureBulk(_ arguments: [String]) throws -> ReportLine {
        try ChildProcess.lastLine(
            of: ChildProcess.executableURL, ["measure-bulk"] + arguments, source: "the output of anna-bench measure-bulk")
    }

    /// Writes `task/index.js` (W1's tasks) and `sessions/sNNNN.ndjson` into `folder`.
    static func writeBulkWorkspace(in folder: URL, sessions: Int) throws {
        let sessionsFolder = folder.appendingPathComponent("sessions", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: sessionsFolder, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("task"), withIntermediateDirectories: true)
            try TaskGenerator.source(.w1, screens: HostTree.w1Screens, patterns: 0)
                .write(to: folder.appendingPathComponent("task/index.js"), atomically: true, encoding: .utf8)
            let text = sessionText()
            for number in 0..<sessions {
                try text.write(to: sessionsFolder.appendingPathComponent(String(format: "s%04d.ndjson", number)), atomically: false, encoding: .utf8)
            }
        } catch {
            throw BenchError.workspaceFailed(path: folder.path, reason: "\(error)")
        }
    }

    /// One session's NDJSON: the tree, then the events (every session alike).
    static func sessionText() -> String {
        var lines = [#"{"op":"register","id":1,"parent":null,"name":"__root__"}"#, #"{"op":"register","id":2,"parent":1,"name":"app"}"#]
        var cells: [Int] = []
        var next = 3
        for screen in 0..<screensPerSession {
            let screenID = next
            lines.append(#"{"op":"register","id":\#(screenID),"parent":2,"name":"screen\#(screen)"}"#)
            lines.append(#"{"op":"register","id":\#(screenID + 1),"parent":\#(screenID),"name":"list"}"#)
            next += 2
            for index in 0..<BenchScreen.cellCount {
                lines.append(#"{"op":"register","id":\#(next),"parent":\#(screenID + 1),"name":"cell","index":\#(index)}"#)
                cells.append(next)
                next += 1
            }
        }
        for k in 0..<eventsPerSession {
            let cell = cells[k % cells.count]
            switch EventMix.kind(of: k) {
            case .select: lines.append(#"{"op":"event","id":\#(cell),"name":"did-select"}"#)
            case .appeared: lines.append(#"{"op":"event","id":\#(cell),"name":"ana-appeared"}"#)
            case .updated:
                lines.append(
                    #"{"op":"event","id":\#(cell),"name":"ana-updated","properties":{"key-path":"text","value":"\#(EventMix.values[k & 7])"}}"#)
            case .scroll: lines.append(#"{"op":"event","id":\#(cell),"name":"scroll","properties":{"x":\#(k)}}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
