import BenchStats
import Foundation

/// Compares a run with a baseline: every figure a baseline line lists in `guard`, for the
/// line of the same scenario and variant in the current run.
///
/// A figure is *worse* when it moved the wrong way by more than `tolerance` (relative)
/// plus its rule's absolute slack: throughput below `expected × (1 − tolerance) − slack`, or a
/// time, latency or memory figure above `expected × (1 + tolerance) + slack`.
///
/// `expected` is the baseline's figure at the current run's machine speed: for a figure that
/// follows the machine (a rate, a CPU time) and lines that both carry the machine gauge
/// (``MachineSpeed``, `calibrationMs`), the baseline scaled by the two gauges' ratio; for
/// every other figure (ratios of pairs, memory, latencies at a fixed rate), the baseline as
/// it is.
struct Comparison {
    /// How one guarded figure may move.
    struct Rule {
        /// Whether a larger value is better (throughput) or worse (time, latency, memory).
        var higherIsBetter: Bool
        /// Allowed on top of the relative tolerance, in the figure's unit: the noise floor of
        /// figures that are small in absolute terms (sub-millisecond latencies).
        var slack: Double
        /// Whether the figure moves with the machine's speed (events per second, CPU time per
        /// result), so the baseline is scaled by the lines' machine gauges before comparing.
        var followsMachine = false
    }

    /// The rules, by figure name; a guarded figure without one counts as lower-is-better.
    static let rules: [String: Rule] = [
        "eventsPerSecond": Rule(higherIsBetter: true, slack: 0, followsMachine: true),
        // W1 with an outbox: its rate over the bundled run's in the same round.
        "relativeToBundled": Rule(higherIsBetter: true, slack: 0),
        // I1: W1's rate with an inspector and a client over its rate without (pairs), and the
        // time from a record call to the client, which ticks every 100 ms.
        "relativeToWithout": Rule(higherIsBetter: true, slack: 0),
        "updateP50Ms": Rule(higherIsBetter: false, slack: 25),
        // W5: lines per CPU second of `anna run`, and Node's CPU time over anna's (pairs).
        "linesPerCpuSecond": Rule(higherIsBetter: true, slack: 0, followsMachine: true),
        "cpuRatioToNode": Rule(higherIsBetter: true, slack: 0),
        // W6: sessions per CPU second of `anna replay`, and the cost of an engine reset.
        "sessionsPerCpuSecond": Rule(higherIsBetter: true, slack: 0, followsMachine: true),
        "resetEngineMs": Rule(higherIsBetter: false, slack: 0.2, followsMachine: true),
        // T1: what TypeScript task files add to `anna run` over JavaScript: seconds cold (the
        // compiler loaded), milliseconds with the cache filled, and the CPU of a W1 replay.
        "coldExtraSeconds": Rule(higherIsBetter: false, slack: 0.3),
        // (single pairs of ~200 ms runs differ by ±60 ms: the median of 5 moves by ±20)
        "warmExtraMs": Rule(higherIsBetter: false, slack: 60),
        "cpuRelativeToJavaScript": Rule(higherIsBetter: false, slack: 0.1),
        // O1: results appended or delivered per second; appends onto a backlog over appends to
        // an empty file (pairs).
        "resultsPerSecond": Rule(higherIsBetter: true, slack: 0, followsMachine: true),
        "relativeToEmpty": Rule(higherIsBetter: true, slack: 0),
        // destinations: the CPU time per delivered result (all threads, the loopback receiver's
        // included), and the bytes a result takes on the wire in each format (request line,
        // headers and body over the results; the same from run to run, so growth is the format's).
        "cpuUsPerResult": Rule(higherIsBetter: false, slack: 2, followsMachine: true),
        "wireBytesPerResult": Rule(higherIsBetter: false, slack: 16),
        // anna-gtk-bench: ns a hooked emission adds on GTK's thread, the snapshot of a live
        // 1,000-widget window, and a long list scrolled with the capture over without.
        "overheadNs": Rule(higherIsBetter: false, slack: 150, followsMachine: true),
        "snapshotMs": Rule(higherIsBetter: false, slack: 2, followsMachine: true),
        "relativeToOff": Rule(higherIsBetter: false, slack: 0.1),
        "bytesPerNode": Rule(higherIsBetter: false, slack: 64),
        "rssRatio": Rule(higherIsBetter: false, slack: 0),
        // Sub-millisecond latencies on a shared 2-core machine: the median moves between 0.04
        // and 0.12 ms from one run of a build to the next.
        "p50Ms": Rule(higherIsBetter: false, slack: 0.1),
        // The p99 is set by how many garbage-collection pauses (1-3 ms, each delaying ~100
        // events at 50k/s) fall in the run: runs of one build range from 0.4 to 2.3 ms. The
        // guard catches gross regressions (a batching delay), the table shows the rest.
        "p99Ms": Rule(higherIsBetter: false, slack: 1.5),
    ]

    /// One compared figure.
    struct Finding {
        var line: String
        var figure: String
        var baseline: Double
        /// The baseline at the current run's machine speed (``baseline`` when not scaled).
        var expected: Double
        /// The current line's machine gauge over the baseline line's, when the baseline was
        /// scaled by it (above 1: the machine is slower now).
        var machineRatio: Double?
        /// Whether the figure follows the machine's speed (``Rule/followsMachine``).
        var followsMachine: Bool
        var current: Double
        var limit: Double
        var worse: Bool
        /// Better than the baseline by more than the tolerance: time to refresh it.
        var muchBetter: Bool
        /// The largest share of the CPUs other processes used during the current line's runs.
        var othersShare: Double
    }

    var tolerance: Double
    /// Whether figures that follow the machine are compared at the current machine speed
    /// (`false`: as measured, `compare --ignore-gauge`).
    var scalesByGauge = true

    /// A guarded figure the current run's line does not have (W5's ratio to Node when Node
    /// was not there): not compared, and said so.
    struct Skipped {
        var line: String
        var figure: String
        /// Why, when the line says (its `node` note).
        var reason: String
    }

    /// The findings, the baseline lines missing from the current run, and the guarded figures
    /// its lines lack.
    func compare(baseline: [ReportLine], current: [ReportLine]) -> (findings: [Finding], missing: [String], skipped: [Skipped]) {
        var findings: [Finding] = []
        var missing: [String] = []
        var skipped: [Skipped] = []
        for base in baseline {
            let key = Self.key(base)
            guard let guarded = base["guard"]?.arrayValue?.compactMap(\.stringValue), !guarded.isEmpty else { continue }
            guard let now = current.first(where: { Self.key($0) == key }) else {
                missing.append(key)
                continue
            }
            for figure in guarded {
                guard now[figure]?.numberValue != nil else {
                    skipped.append(Skipped(line: key, figure: figure, reason: now.string("node")))
                    continue
                }
                let rule = Self.rules[figure] ?? Rule(higherIsBetter: false, slack: 0)
                let old = base.number(figure)
                let new = now.number(figure)
                let ratio = rule.followsMachine && scalesByGauge ? Self.machineRatio(base, now) : nil
                // A slower machine (ratio above 1) lowers a rate and raises a time, in proportion.
                let expected = ratio.map { rule.higherIsBetter ? old / $0 : old * $0 } ?? old
                let limit = rule.higherIsBetter ? expected * (1 - tolerance) - rule.slack : expected * (1 + tolerance) + rule.slack
                let worse = rule.higherIsBetter ? new < limit : new > limit
                let muchBetter =
                    rule.higherIsBetter ? new > expected * (1 + tolerance) : new < expected * (1 - tolerance) - rule.slack
                findings.append(
                    Finding(
                        line: key, figure: figure, baseline: old, expected: expected, machineRatio: ratio,
                        followsMachine: rule.followsMachine, current: new,
                        limit: limit, worse: worse, muchBetter: muchBetter, othersShare: now.number("othersCpuShare")))
            }
        }
        return (findings, missing, skipped)
    }

    /// The current line's machine gauge over the baseline line's; `nil` unless both lines
    /// carry a positive one.
    static func machineRatio(_ baseline: ReportLine, _ current: ReportLine) -> Double? {
        guard let old = baseline["calibrationMs"]?.numberValue, let new = current["calibrationMs"]?.numberValue,
            old > 0, new > 0
        else { return nil }
        return new / old
    }

    /// The median `calibrationMs` (``MachineSpeed``) of each file's lines, when both have it.
    static func machineSpeed(baseline: [ReportLine], current: [ReportLine]) -> (baseline: Double, current: Double)? {
        let old = baseline.compactMap { $0["calibrationMs"]?.numberValue }
        let new = current.compactMap { $0["calibrationMs"]?.numberValue }
        guard !old.isEmpty, !new.isEmpty else { return nil }
        return (Stats.median(old), Stats.median(new))
    }

    /// `W2 nodes=1000,patterns=100`: what identifies a line across runs.
    static func key(_ line: ReportLine) -> String {
        line.string("scenario") + " " + line.string("variant")
    }

    /// Reads a file of JSON lines.
    /// - Throws: ``BenchError/unreadableFile(path:reason:)``.
    static func readLines(_ path: String) throws -> [ReportLine] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw BenchError.unreadableFile(path: path, reason: "no such file")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw BenchError.unreadableFile(path: path, reason: error.localizedDescription)
        }
        var lines: [ReportLine] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !raw.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                lines.append(try ReportLine(parsing: String(raw), source: path))
            } catch {
                throw BenchError.unreadableFile(path: "\(path):\(number + 1)", reason: "\(error)")
            }
        }
        return lines
    }
}
