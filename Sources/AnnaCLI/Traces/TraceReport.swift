import CoreJS
import Foundation

/// The readable report and the JUnit XML of checking traces against a run.
struct TraceReport {
    let checks: [TraceCheck]
    /// Results that match no item of any trace (reported, not a failure: traces name what
    /// they care about, as in Tracer).
    let unexpected: [JSONValue]

    init(traces: [Trace], results: [JSONValue]) {
        checks = traces.map { TraceCheck(trace: $0, results: results) }
        let expected = traces.flatMap(\.items)
        unexpected = results.filter { !expected.contains($0) }
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
        let item: JSONValue
        let note: String?

        /// The item with the note: `{"action":"checkout"}`, `{"action":"viewed"} (result 2)`.
        var detail: String { item.jsonText + (note.map { " (\($0))" } ?? "") }
    }

    /// The findings of a check: each item's outcome in the trace's order, then the duplicates.
    static func findings(of check: TraceCheck) -> [Finding] {
        check.outcomes.map { item, outcome in
            switch outcome {
            case let .matched(position): Finding(kind: .matched, item: item, note: "result \(position + 1)")
            case .missing: Finding(kind: .missing, item: item, note: nil)
            case let .outOfOrder(position): Finding(kind: .outOfOrder, item: item, note: "result \(position + 1)")
            }
        } + check.duplicates.map { Finding(kind: .duplicated, item: $0.item, note: "\($0.count) times") }
    }

    /// Text for a person: one block per trace, then the unexpected results.
    var text: String {
        var lines: [String] = []
        for check in checks {
            let matched = check.outcomes.filter(\.outcome.isMatched).count
            lines.append("\(check.passed ? "PASS" : "FAIL") \(check.trace.name): \(matched) of \(check.trace.items.count) matched")
            for finding in Self.findings(of: check) {
                lines.append("  " + finding.kind.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0) + finding.detail)
            }
        }
        if !unexpected.isEmpty {
            lines.append("unexpected: \(unexpected.count) results match no trace item")
            for item in unexpected.prefix(20) { lines.append("  unexpected    \(item.jsonText)") }
            if unexpected.count > 20 { lines.append("  … and \(unexpected.count - 20) more") }
        }
        let failed = checks.filter { !$0.passed }.count
        lines.append("\(checks.count - failed) passed, \(failed) failed")
        return lines.joined(separator: "\n")
    }

    /// JUnit XML: one test case per trace, each failure listing what is not matched.
    func junitXML(suiteName: String) -> String {
        let failures = checks.filter { !$0.passed }.count
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites tests="\#(checks.count)" failures="\#(failures)">"# + "\n"
        xml += #"  <testsuite name="\#(Self.escape(suiteName))" tests="\#(checks.count)" failures="\#(failures)">"# + "\n"
        for check in checks {
            xml += #"    <testcase classname="anna.trace" name="\#(Self.escape(check.trace.name))">"#
            if !check.passed {
                let problems = Self.findings(of: check).filter { $0.kind != .matched }.map { "\($0.kind.rawValue) \($0.detail)" }
                xml += "\n" + #"      <failure message="\#(Self.escape(problems.first ?? "failed"))">"#
                xml += Self.escape(problems.joined(separator: "\n")) + "</failure>\n    "
            }
            xml += "</testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
