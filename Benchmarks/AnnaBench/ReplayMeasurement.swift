import Foundation

/// W5: `anna run` replaying W1's stream (``ReplayWorkload``), the release binary in a child
/// process writing its results to a file, timed from start to exit; and, when Node and the
/// original core are there, the same file through the original core on Node
/// (`Benchmarks/node/replay-original.js`), run in interleaved pairs.
///
/// Each run checks its work: the number of result lines must be the workload's, and the
/// original core's results must be the same lines as `anna`'s.
struct ReplayMeasurement {
    /// The `anna` binary (the release one next to `anna-bench`).
    var anna: URL
    /// The Node driver and the original core, or why the comparison is skipped.
    var node: Result<NodeOriginal, NodeSkipped>

    /// What a Node comparison needs.
    struct NodeOriginal {
        var node: URL
        var driver: URL
        var core: URL
    }

    /// Why the Node comparison does not run.
    struct NodeSkipped: Error, CustomStringConvertible {
        var description: String
    }

    /// One timed run: wall seconds, CPU seconds of the child, and the others' share of the CPUs.
    struct Run {
        var seconds: Double
        var cpuSeconds: Double
        var othersCpuShare: Double
    }

    /// Runs `anna run` on the workload once, writing to `output`.
    /// - Throws: ``BenchError`` when it fails or its results are not the expected count.
    func runAnna(_ workload: ReplayWorkload, output: URL) throws -> Run {
        try runAnna(
            ["run", "--events", workload.streamURL.path, "--tasks", workload.taskFolderURL.path], output: output,
            expectedLines: workload.expected.total)
    }

    /// Runs `anna arguments…` once with `environment` added to this process's, writing to `output`.
    /// - Throws: ``BenchError`` when it fails or does not write `expectedLines` lines.
    func runAnna(_ arguments: [String], environment: [String: String] = [:], output: URL, expectedLines: Int) throws -> Run {
        let run = try timed(anna, arguments, environment: environment, output: output)
        try Self.checkLines(output, expected: expectedLines, who: "anna run")
        return run
    }

    /// Runs the original core on Node once, writing to `output`.
    func runNode(_ original: NodeOriginal, _ workload: ReplayWorkload, output: URL) throws -> Run {
        let run = try timed(
            original.node,
            [
                original.driver.path, "--core", original.core.path, "--tasks", workload.taskFolderURL.path, "--events",
                workload.streamURL.path, "--out", output.path,
            ], output: nil)
        try Self.checkLines(output, expected: workload.expected.total, who: "the original core on Node")
        return run
    }

    private func timed(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], output: URL?) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardError = FileHandle.nullDevice  // (anna's note on unused tasks)
        if let output {
            guard FileManager.default.createFile(atPath: output.path, contents: nil), let handle = FileHandle(forWritingAtPath: output.path)
            else { throw BenchError.workspaceFailed(path: output.path, reason: "cannot create the output file") }
            process.standardOutput = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        let before = MachineLoad.Reading.now()
        let childrenBefore = Self.childrenCPUSeconds()
        let start = MonotonicClock.now()
        do {
            try process.run()
        } catch {
            throw BenchError.childFailed(arguments: [executable.path] + arguments, status: -1, output: "\(error)")
        }
        process.waitUntilExit()
        let end = MonotonicClock.now()
        let childCPU = Self.childrenCPUSeconds() - childrenBefore
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError.childFailed(arguments: [executable.path] + arguments, status: process.terminationStatus, output: "")
        }
        let after = MachineLoad.Reading.now()
        let wall = MonotonicClock.seconds(from: start, to: end)
        // Others: what the machine was busy with beyond this process and its child.
        let busy = after.othersShare(since: before) * wall * Double(MachineLoad.cpuCount)
        let others = max(0, busy - childCPU) / max(wall * Double(MachineLoad.cpuCount), 1e-9)
        return Run(seconds: wall, cpuSeconds: childCPU, othersCpuShare: min(1, others))
    }

    /// CPU seconds of the children waited for so far.
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    private static func checkLines(_ url: URL, expected: Int, who: String) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw BenchError.workspaceFailed(path: url.path, reason: "\(who)'s results cannot be read: \(error)")
        }
        let lines = data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        guard lines == expected else {
            throw BenchError.workspaceFailed(path: url.path, reason: "\(who) wrote \(lines) results, expected \(expected)")
        }
    }

    /// Node, the driver and the original core, found from the options and environment.
    static func findNode(core: String?, driver: String) -> Result<NodeOriginal, NodeSkipped> {
        let environment = ProcessInfo.processInfo.environment
        let corePath = core ?? environment["ANNA_ORIGINAL_CORE"] ?? ".build/original-anna/index.js"
        guard FileManager.default.isReadableFile(atPath: corePath) else {
            return .failure(NodeSkipped(description: "no original core at \(corePath) (give --original-core or ANNA_ORIGINAL_CORE)"))
        }
        guard FileManager.default.isReadableFile(atPath: driver) else {
            return .failure(NodeSkipped(description: "no Node driver at \(driver)"))
        }
        let paths = (environment["PATH"] ?? "/usr/bin").split(separator: ":").map { String($0) + "/node" }
        guard let node = paths.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return .failure(NodeSkipped(description: "node is not on the PATH"))
        }
        return .success(
            NodeOriginal(
                node: URL(fileURLWithPath: node), driver: URL(fileURLWithPath: driver), core: URL(fileURLWithPath: corePath)))
    }
}
