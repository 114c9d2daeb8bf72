import BenchStats
import Foundation

/// T1: what TypeScript task files cost `anna run`, in interleaved pairs with the same module
/// in JavaScript.
///
/// - `cold-start`: the demo session on `fixtures/demo/module-ts` against `fixtures/demo/module`,
///   the TypeScript run with an empty cache (TypeScript's compiler loaded, every file
///   compiled) and again with the cache it filled; the extra seconds over the JavaScript run of
///   the pair (2 × runs + 1 pairs), and both runs' results identical to the committed ones.
/// - `w1-replay`: W5's stream on W1's task files renamed `.ts` (compiled output cached), its
///   CPU time over the JavaScript files' in the same pair, and the same result lines.
extension ScenarioRunner {
    static let demoFolder = URL(fileURLWithPath: "fixtures/demo", isDirectory: true)

    func runTypeScript() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("anna-bench-t1-\(getpid())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // a scratch folder, as W5's
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw BenchError.workspaceFailed(path: folder.path, reason: "\(error)")
        }
        let measurement = ReplayMeasurement(anna: try annaBinary(), node: node)
        try runColdStart(measurement, in: folder)
        try runTypeScriptReplay(measurement, in: folder)
    }

    private func runColdStart(_ measurement: ReplayMeasurement, in folder: URL) throws {
        let session = Self.demoFolder.appendingPathComponent("session.ndjson").path
        let expected = try Data(contentsOf: Self.demoFolder.appendingPathComponent("expected-results.ndjson"))
        let lines = expected.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let results = folder.appendingPathComponent("demo.ndjson")
        func run(_ module: String, cache: URL) throws -> ReplayMeasurement.Run {
            let run = try measurement.runAnna(
                ["run", "--events", session, "--module", Self.demoFolder.appendingPathComponent(module).path],
                environment: ["ANNA_CACHE_DIR": cache.path], output: results, expectedLines: lines)
            guard try Data(contentsOf: results) == expected else {
                throw BenchError.workspaceFailed(path: results.path, reason: "the results of \(module) differ from the committed ones")
            }
            return run
        }
        var cold: [Double] = []
        var warm: [Double] = []
        var javaScript: [Double] = []
        var othersShare = 0.0
        // A pair takes about a second and single runs swing by a third here: more pairs than
        // the other scenarios' runs keep the median steady.
        let pairs = 2 * sizes.runs + 1
        for round in 1...pairs {
            let cache = folder.appendingPathComponent("cache-\(round)", isDirectory: true)
            let plain = try run("module", cache: cache)
            let first = try run("module-ts", cache: cache)
            let second = try run("module-ts", cache: cache)
            javaScript.append(plain.seconds)
            othersShare = max(othersShare, plain.othersCpuShare, first.othersCpuShare, second.othersCpuShare)
            cold.append(first.seconds - plain.seconds)
            warm.append(second.seconds - plain.seconds)
            output.progress(
                "T1 round \(round)/\(pairs): JavaScript \(ms(plain.seconds)), TypeScript cold \(ms(first.seconds)), "
                    + "warm \(ms(second.seconds))")
        }
        var line = header("T1", "cold-start")
        line["javaScriptSeconds"] = .rounded(Stats.median(javaScript), 3)
        line["coldExtraSeconds"] = .rounded(Stats.median(cold), 3)
        line["warmExtraMs"] = .rounded(Stats.median(warm) * 1000, 1)
        line["allColdExtraSeconds"] = .array(cold.map { .rounded($0, 3) })
        line["allWarmExtraMs"] = .array(warm.map { .rounded($0 * 1000, 1) })
        line["runs"] = .number(Double(pairs))
        line["median"] = true
        line["resultsIdentical"] = true
        line["othersCpuShare"] = .rounded(othersShare, 2)
        line["guard"] = ["coldExtraSeconds", "warmExtraMs"]
        output.emit(line)
    }

    private func runTypeScriptReplay(_ measurement: ReplayMeasurement, in folder: URL) throws {
        let workload = try awaitWorkload(events: sizes.w1Events, in: folder.appendingPathComponent("w1", isDirectory: true))
        let typeScriptTasks = folder.appendingPathComponent("task-ts", isDirectory: true)
        try Self.copyRenamingToTypeScript(workload.taskFolderURL, to: typeScriptTasks)
        let cache = folder.appendingPathComponent("cache-w1", isDirectory: true)
        let jsOutput = folder.appendingPathComponent("w1-js.ndjson")
        let tsOutput = folder.appendingPathComponent("w1-ts.ndjson")
        func run(_ tasks: URL, _ output: URL) throws -> ReplayMeasurement.Run {
            try measurement.runAnna(
                ["run", "--events", workload.streamURL.path, "--tasks", tasks.path], environment: ["ANNA_CACHE_DIR": cache.path],
                output: output, expectedLines: workload.expected.total)
        }
        _ = try run(typeScriptTasks, tsOutput)  // fills the cache: the pairs compare loaded modules
        var ratios: [Double] = []
        var rates: [Double] = []
        var othersShare = 0.0
        for round in 1...sizes.runs {
            let plain = try run(workload.taskFolderURL, jsOutput)
            let typed = try run(typeScriptTasks, tsOutput)
            guard try Data(contentsOf: jsOutput) == Data(contentsOf: tsOutput) else {
                throw BenchError.workspaceFailed(path: tsOutput.path, reason: "the TypeScript task files' results differ")
            }
            ratios.append(typed.cpuSeconds / plain.cpuSeconds)
            othersShare = max(othersShare, plain.othersCpuShare, typed.othersCpuShare)
            rates.append(Double(workload.lines) / typed.seconds)
            output.progress("T1 W1 round \(round)/\(sizes.runs): CPU \(ms(typed.cpuSeconds)) with .ts, \(ms(plain.cpuSeconds)) with .js")
        }
        var line = header("T1", "w1-replay")
        line["lines"] = .number(Double(workload.lines))
        line["linesPerSecond"] = .rounded(Stats.median(rates))
        line["cpuRelativeToJavaScript"] = .rounded(Stats.median(ratios), 3)
        line["allCpuRelativeToJavaScript"] = .array(ratios.map { .rounded($0, 3) })
        line["runs"] = .number(Double(sizes.runs))
        line["median"] = true
        line["resultsIdentical"] = true
        line["othersCpuShare"] = .rounded(othersShare, 2)
        line["guard"] = ["cpuRelativeToJavaScript"]
        output.emit(line)
    }

    /// Copies `source` to `destination` with every `.js` file named `.ts` (W1's generated task
    /// files are valid TypeScript).
    static func copyRenamingToTypeScript(_ source: URL, to destination: URL) throws {
        let files = FileManager.default
        guard let enumerator = files.enumerator(atPath: source.path) else {
            throw BenchError.workspaceFailed(path: source.path, reason: "cannot list the task folder")
        }
        while let relative = enumerator.nextObject() as? String {
            let from = source.appendingPathComponent(relative)
            var isFolder: ObjCBool = false
            guard files.fileExists(atPath: from.path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            let name = relative.hasSuffix(".js") ? String(relative.dropLast(3)) + ".ts" : relative
            let to = destination.appendingPathComponent(name)
            do {
                try files.createDirectory(at: to.deletingLastPathComponent(), withIntermediateDirectories: true)
                try files.copyItem(at: from, to: to)
            } catch {
                throw BenchError.workspaceFailed(path: to.path, reason: "cannot copy a task file: \(error)")
            }
        }
    }

    private func ms(_ seconds: Double) -> String { "\(Int((seconds * 1000).rounded())) ms" }
}
