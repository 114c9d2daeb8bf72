import ArgumentParser
import Foundation

/// `anna-bench compare --baseline FILE --current FILE [--tolerance 0.3] [--ignore-gauge]`: the
/// regression guard of `make bench-check`.
///
/// Exit codes: 0 no guarded figure is worse; 1 at least one is; 66 a file cannot be read.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Fail when a run is worse than the baseline by more than the tolerance.",
        discussion: """
            Compares every figure a baseline line lists in "guard" with the line of the same
            scenario and variant in the current file: events/s or lines per CPU second lower,
            or a time, latency or memory figure higher, by more than the tolerance (plus a
            small absolute slack for sub-millisecond latencies and bytes per node) fails. A
            guarded figure the current line lacks (W5's ratio to Node without Node) is listed
            and not compared.
            Rates and CPU times follow the machine's speed: where both lines carry the machine
            gauge (calibrationMs), the baseline is first scaled by the gauges' ratio, so a
            slower hour of a shared machine does not fail unchanged code. --ignore-gauge
            compares them as measured.
            Exit codes: 0 within tolerance, 1 a figure is worse, 66 unreadable file.
            """)

    @Option(help: ArgumentHelp("The committed baseline (JSON lines).", valueName: "file"))
    var baseline: String

    @Option(help: ArgumentHelp("The run to check (JSON lines from --json-out).", valueName: "file"))
    var current: String

    @Option(help: "Allowed relative change for the worse (0.3 = 30%).")
    var tolerance = 0.3

    @Flag(help: "Compare rates and CPU times as measured, not scaled by the lines' machine gauges.")
    var ignoreGauge = false

    func validate() throws {
        guard tolerance >= 0 && tolerance < 1 else { throw ValidationError("--tolerance must be in [0, 1).") }
    }

    func run() throws {
        let baselineLines: [ReportLine]
        let currentLines: [ReportLine]
        do {
            baselineLines = try Comparison.readLines(baseline)
            currentLines = try Comparison.readLines(current)
        } catch {
            printError("anna-bench: \(error)")
            throw ExitCode(66)
        }
        let comparison = Comparison(tolerance: tolerance, scalesByGauge: !ignoreGauge)
        let (findings, missing, skipped) = comparison.compare(baseline: baselineLines, current: currentLines)
        if let base = baselineLines.first?.string("profile"), let now = currentLines.first?.string("profile"), base != now {
            printError("warning: the baseline was made with --profile \(base), the current run with --profile \(now)")
        }
        for finding in findings {
            let change = finding.expected == 0 ? 0 : (finding.current / finding.expected - 1) * 100
            var verdict = finding.worse ? "WORSE" : finding.muchBetter ? "better (refresh the baseline?)" : "ok"
            if finding.worse && finding.othersShare > ScenarioRunner.noisyShare {
                verdict +=
                    " (but other processes used up to \(Int((finding.othersShare * 100).rounded()))% of the CPUs: run again on a quiet machine)"
            }
            print(
                "\(finding.worse ? "✗" : "✓") \(finding.line) \(finding.figure): baseline \(format(finding.baseline))"
                    + scaling(finding) + ", current \(format(finding.current)) (\(String(format: "%+.1f%%", change)); "
                    + "limit \(format(finding.limit))) " + verdict)
        }
        for figure in skipped {
            print("– \(figure.line) \(figure.figure): not measured in this run\(figure.reason.isEmpty ? "" : " (\(figure.reason))"), not compared")
        }
        for key in missing { printError("warning: \(key) is in the baseline but not in \(current)") }
        let speed = Comparison.machineSpeed(baseline: baselineLines, current: currentLines)
        if let speed {
            let change = speed.current / speed.baseline - 1
            print(
                String(
                    format: "machine gauge (calibrationMs, median of the lines): baseline %.1f ms, current %.1f ms (%+.0f%%)",
                    speed.baseline, speed.current, change * 100)
                    + (abs(change) > 0.15 ? ": the machine's speed moved, and the figures with it" : "")
                    + (ignoreGauge ? "; rates and CPU times compared as measured (--ignore-gauge)" : ""))
        }
        let worse = findings.filter(\.worse)
        print("\(findings.count) figures compared with tolerance \(Int((tolerance * 100).rounded()))%: \(worse.count) worse")
        if !worse.isEmpty { throw ExitCode(1) }
    }

    /// What the baseline is at the current machine speed, or why it was compared as measured.
    private func scaling(_ finding: Comparison.Finding) -> String {
        guard finding.followsMachine, !ignoreGauge else { return "" }
        guard let ratio = finding.machineRatio else { return " (no machine gauge on both lines: compared as measured)" }
        return " (\(format(finding.expected)) at the current machine speed, gauge \(String(format: "×%.2f", ratio)))"
    }

    private func format(_ value: Double) -> String {
        abs(value) >= 100 ? Output.grouped(value) : String(format: "%.4g", value)
    }
}

/// Writes `message` and a newline to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
