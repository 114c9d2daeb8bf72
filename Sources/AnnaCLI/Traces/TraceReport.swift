import CoreJS
import Foundation

/// The readable report and the JUnit XML of checking traces against a run.
struct TraceReport {
    let checks: [TraceCheck]
    /// Results that match no item of any trace (reported, not a failure: traces name what
    /// they care about, as in Tracer).
    let unexpected: [JSONValue]
    /// How many results the run produced.
    let resultCount: Int
    /// The run's error lines (a task threw, a file failed to load), for the JUnit failures.
    let runErrors: [String]
    /// How many errors the run had (``runErrors`` keeps the first ones).
    let runErrorCount: Int

    init(traces: [Trace], results: [JSONValue], runErrors: [String] = [], runErrorCount: Int = 0) {
        checks = traces.map { TraceCheck(trace: $0, results: results) }
        resultCount = results.count
        unexpected = results.filter { result in
            !traces.contains { trace in trace.items.contains { trace.matches($0.value, result) } }
        }
        self.runErrors = runErrors
        self.runErrorCount = max(runErrorCount, runErrors.count)
    }

    var passed: Bool { checks.allSatisfy(\.passed) }

    /// What one line of a report says about an item: matched, missing, out of order or
    /// duplicated, and where it was found or how often.
    struct Finding {
        enum Kind: String {
            case matched, missing
            case outOfOrder = "out of order"
            case duplicated
        }

        let kind: Kind
        let item: Trace.Item
        let note: String?
        /// The trace file, to say where an item that is not matched is listed.
        let file: String

        /// The item with the note and, unless matched, where it is listed:
        /// `{"action":"viewed"} (result 2)`, `{"action":"checkout"} at t.json:7`.
        var detail: String {
            item.value.jsonText + (note.map { " (\($0))" } ?? "") + (kind == .matched ? "" : " at \(file):\(item.line)")
        }
    }

    /// The findings of a check: each item's outcome in the trace's order, then the duplicates.
    static func findings(of check: TraceCheck) -> [Finding] {
        let file = check.trace.file
        return check.outcomes.map { item, outcome in
            switch outcome {
            case let .matched(position): Finding(kind: .matched, item: item, note: "result \(position + 1)", file: file)
            case .missing: Finding(kind: .missing, item: item, note: nil, file: file)
            case let .outOfOrder(position): Finding(kind: .outOfOrder, item: item, note: "result \(position + 1)", file: file)
            }
        } + check.duplicates.map { Finding(kind: .duplicated, item: $0.item, note: "\($0.count) times", file: file) }
    }

    /// Text for a person: one block per trace, then how many results no trace expects
    /// (each listed when `verbose`).
    func text(verbose: Bool) -> String {
        var lines: [String] = []
        for check in checks {
            let matched = check.outcomes.filter(\.outcome.isMatched).count
            lines.append("\(check.passed ? "PASS" : "FAIL") \(check.trace.name): \(matched) of \(check.trace.items.count) matched")
            for finding in Self.findings(of: check) {
                lines.append("  " + finding.kind.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0) + finding.detail)
            }
        }
        if !unexpected.isEmpty {
            let verb = unexpected.count == 1 ? "matches" : "match"
            lines.append(
                "unexpected: \(unexpected.count) of \(Plural.count(resultCount, "result")) \(verb) no trace item"
                    + (verbose ? "" : " (--verbose lists them)"))
            if verbose {
                for item in unexpected { lines.append("  unexpected    \(item.jsonText)") }
            }
        }
        let failed = checks.filter { !$0.passed }.count
        lines.append("\(checks.count - failed) passed, \(failed) failed")
        return lines.joined(separator: "\n")
    }

    /// JUnit XML: one test case per trace (with its file and line), each failure listing
    /// what is not matched, then the run's errors (the task that threw is often why).
    func junitXML(suiteName: String) -> String {
        let failures = checks.filter { !$0.passed }.count
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites tests="\#(checks.count)" failures="\#(failures)">"# + "\n"
        xml += #"  <testsuite name="\#(Self.escape(suiteName))" tests="\#(checks.count)" failures="\#(failures)">"# + "\n"
        for check in checks {
            xml += #"    <testcase classname="anna.trace" name="\#(Self.escape(check.trace.name))""#
            xml += #" file="\#(Self.escape(check.trace.file))" line="\#(check.trace.line)">"#
            if !check.passed {
                let problems = Self.findings(of: check).filter { $0.kind != .matched }.map { "\($0.kind.rawValue) \($0.detail)" }
                var body = problems
                if runErrorCount > 0 {
                    body.append("")
                    body.append("\(Plural.count(runErrorCount, "error")) in the run:")
                    body += runErrors
                    if runErrorCount > runErrors.count { body.append("… and \(runErrorCount - runErrors.count) more") }
                }
                xml += "\n" + #"      <failure message="\#(Self.escape(problems.first ?? "failed"))">"#
                xml += Self.escape(body.joined(separator: "\n")) + "</failure>\n    "
            }
            xml += "</testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// `text` for an XML attribute or element: markup escaped, and the characters XML 1.0
    /// cannot hold at all (controls but tab and line breaks, U+FFFE, U+FFFF) written as
    /// `\u001b`, so a trace's name or a result can never make the report unreadable.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
