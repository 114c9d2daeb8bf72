import CoreJS
import Foundation

/// Where a run's results go: one JSON line per scenario and variant on standard output
/// (and in `--json-out`), progress and a readable table on standard error.
final class Output {
    private(set) var lines: [ReportLine] = []

    /// Prints `line` as JSON on standard output now, and keeps it for the table and file.
    func emit(_ line: ReportLine) {
        lines.append(line)
        FileHandle.standardOutput.write(Data((line.jsonText + "\n").utf8))
    }

    /// A progress message on standard error.
    func progress(_ message: String) {
        FileHandle.standardError.write(Data(("  " + message + "\n").utf8))
    }

    /// Writes every line to `path`, one per line.
    /// - Throws: the file system's error.
    func write(to path: String) throws {
        let text = lines.map(\.jsonText).joined(separator: "\n") + "\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The table of every line so far, on standard error.
    func printTable() {
        let rows = [["scenario", "variant", "figure", "details"]] + lines.map(Self.rowWithNoise)
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = ""
        for (number, row) in rows.enumerated() {
            let cells = zip(row, widths).enumerated().map { column, cell in
                let padding = String(repeating: " ", count: cell.1 - cell.0.count)
                return column == 2 ? padding + cell.0 : column == 3 ? cell.0 : cell.0 + padding
            }
            text += cells.joined(separator: "  ") + "\n"
            if number == 0 { text += widths.map { String(repeating: "-", count: min($0, 40)) }.joined(separator: "  ") + "\n" }
        }
        FileHandle.standardError.write(Data(text.utf8))
    }

    private static func rowWithNoise(_ line: ReportLine) -> [String] {
        var cells = row(line)
        let share = line.number("othersCpuShare")
        if share > ScenarioRunner.noisyShare {
            cells[3] += "; NOISY: other processes used up to \(Int((share * 100).rounded()))% of the CPUs"
        }
        return cells
    }

    private static func row(_ line: ReportLine) -> [String] {
        let scenario = line.string("scenario")
        let variant = line.string("variant")
        switch scenario {
        case "W1", "W2":
            var details =
                "\(grouped(line.number("nsPerEvent"))) ns/event, \(grouped(line.number("results"))) results"
                + " (\(grouped(line.number("events"))) events, \(grouped(line.number("nodes"))) nodes, "
                + "\(grouped(line.number("patterns"))) patterns, median of \(Int(line.number("runs"))))"
            details += String(format: "; CPU %.0f ns/event", line.number("cpuNsPerEvent"))
            if let relative = line["cpuRelativeToNode"]?.numberValue {
                details += String(format: " (%.2f× the original core on Node's)", relative)
            }
            if let host = line["hostCpuNsPerEvent"]?.numberValue {
                details += String(format: ", %.0f of it the host path's (over engine-only)", host)
            }
            if let relative = line["cpuRelativeToBundled"]?.numberValue {
                details += String(
                    format: "; %.2f× bundled's rate, CPU %.2f×, recording threads' CPU %.2f×", line.number("relativeToBundled"), relative,
                    line.number("recordCpuRelativeToBundled"))
            } else if let relative = line["relativeToBundled"]?.numberValue {
                details +=
                    String(format: "; %.2f× bundled, peak +%.0f MB; outbox wrote ", relative, line.number("peakGrowthMB"))
                    + "\(grouped(line.number("outboxWritten"))), dropped \(grouped(line.number("outboxDropped"))) (back-pressure), "
                    + String(format: "caught up %.2f s after the last result", line.number("catchUpSeconds"))
            }
            if let relative = line["relativeToOutbox"]?.numberValue {
                details +=
                    String(format: "; %.2f× one destination; uploaded during the run: ", relative)
                    + "segment \(grouped(line.number("deliveredPerSecond.a.segment"))), anna \(grouped(line.number("deliveredPerSecond.b.anna"))) results/s"
            }
            if scenario == "W2" {
                details +=
                    "; registration \(grouped(line.number("registrationNsPerNode"))) ns/node, "
                    + "\(grouped(line.number("bytesPerNode"))) B/node"
                if let relative = line["relativeToReference"]?.numberValue {
                    details += String(format: "; %.0f%% of nodes=1000,patterns=100", relative * 100)
                }
            }
            return [scenario, variant, grouped(line.number("eventsPerSecond")) + " events/s", details]
        case "W5":
            var details =
                "\(grouped(line.number("lines"))) lines, \(grouped(line.number("results"))) results, "
                + "median of \(Int(line.number("runs")))"
            if let ratio = line["ratioToNode"]?.numberValue {
                details += String(format: "; %.2f× the original core on Node (", ratio) + grouped(line.number("nodeLinesPerSecond")) + " lines/s)"
            } else if let skipped = line["node"]?.stringValue {
                details += "; " + skipped
            }
            return [scenario, variant, grouped(line.number("linesPerSecond")) + " lines/s", details]
        case "W6" where variant == "engine-cost":
            return [
                scenario, variant, "reset " + milliseconds(line.number("resetEngineMs")),
                "fresh engine \(milliseconds(line.number("freshEngineMs"))); a small session after a reset "
                    + "\(milliseconds(line.number("sessionAfterResetMs"))) (its task file loaded again); median of "
                    + "\(grouped(line.number("engines")))",
            ]
        case "W6":
            var details =
                "\(grouped(line.number("sessionsPerCpuSecond"))) per CPU second; \(grouped(line.number("sessions"))) sessions × "
                + "\(grouped(line.number("eventsPerSession"))) events, median of \(Int(line.number("runs")))"
            if let speedup = line["speedupOverOneJob"]?.numberValue {
                details += String(format: "; %.2f× one job (median of interleaved pairs)", speedup)
            }
            return [scenario, variant, grouped(line.number("sessionsPerSecond")) + " sessions/s", details]
        case "T1" where variant == "cold-start":
            return [
                scenario, variant, String(format: "+%.2f s cold", line.number("coldExtraSeconds")),
                String(format: "%+.0f ms with the cache; ", line.number("warmExtraMs"))
                    + String(
                        format: "the demo session on its TypeScript module over its JavaScript one (%.0f ms), ",
                        line.number("javaScriptSeconds") * 1000)
                    + "median of \(Int(line.number("runs"))) pairs",
            ]
        case "T1":
            return [
                scenario, variant, String(format: "%.2f× the CPU", line.number("cpuRelativeToJavaScript")),
                "W5's stream on W1's task files as .ts over .js (compiled output cached), "
                    + "\(grouped(line.number("linesPerSecond"))) lines/s, median of \(Int(line.number("runs"))) pairs",
            ]
        case "W3":
            let samples = line["rssSamplesMB"]?.arrayValue?.compactMap(\.numberValue) ?? []
            return [
                scenario, variant, String(format: "last/first %.3f", line.number("rssRatio")),
                String(format: "peak/first %.3f; ", line.number("rssPeakRatio"))
                    + "RSS MB every \(grouped(line.number("sampleEvery"))) events: "
                    + samples.map { String(format: "%.1f", $0) }.joined(separator: " ")
                    + "; \(grouped(line.number("screensReplaced"))) screens replaced, "
                    + "\(grouped(line.number("eventsPerSecond"))) events/s",
            ]
        case "W4":
            return [
                scenario, variant, "p99 " + milliseconds(line.number("p99Ms")),
                "p50 \(milliseconds(line.number("p50Ms"))), p99.9 \(milliseconds(line.number("p999Ms"))), "
                    + "max \(milliseconds(line.number("maxMs"))); \(grouped(line.number("measured"))) results measured "
                    + "per run at \(grouped(line.number("achievedRate"))) events/s (median of \(Int(line.number("runs"))))",
            ]
        case "O1":
            let details =
                switch variant {
                case "append":
                    "p50 \(milliseconds(line.number("p50Ms"))), p99 \(milliseconds(line.number("p99Ms"))) per append; "
                        + "\(grouped(line.number("results"))) results committed (median of \(Int(line.number("runs"))))"
                case "append-backlog":
                    String(format: "%.2f× an empty file's ", line.number("relativeToEmpty"))
                        + "(\(grouped(line.number("emptyResultsPerSecond")))); \(grouped(line.number("results"))) results in "
                        + "transactions of \(grouped(line.number("burst"))) onto \(grouped(line.number("backlog"))) waiting "
                        + "(median of \(Int(line.number("runs"))) pairs)"
                default:
                    "\(grouped(line.number("results"))) results to a loopback collector in \(grouped(line.number("requests"))) requests"
                }
            return [scenario, variant, grouped(line.number("resultsPerSecond")) + " results/s", details]
        case "destinations":
            var details =
                "\(grouped(line.number("results"))) results in \(grouped(line.number("requests"))) requests, "
                + String(format: "%.0f B/result on the wire, %.1f µs CPU/result", line.number("wireBytesPerResult"), line.number("cpuUsPerResult"))
            if let relative = line["relativeToAnna"]?.numberValue { details += String(format: ", %.2f× anna", relative) }
            details += " (median of \(Int(line.number("runs"))))"
            return [scenario, variant, grouped(line.number("resultsPerSecond")) + " results/s", details]
        default:
            return [scenario, variant, "", line.jsonText]
        }
    }

    /// `1234567.8` as `1,234,568`.
    static func grouped(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let digits = String(Int64(value.rounded()).magnitude)
        var text = ""
        for (position, digit) in digits.enumerated() {
            if position > 0 && (digits.count - position) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return (value < -0.5 ? "-" : "") + text
    }

    /// `0.1234` as `0.123 ms`.
    static func milliseconds(_ value: Double) -> String {
        String(format: "%.3f ms", value)
    }
}
