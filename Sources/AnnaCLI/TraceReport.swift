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

    /// Text for a person: one block per trace, then the unexpected results.
    var text: String {
        var lines: [String] = []
        for check in checks {
            let matched = check.outcomes.filter { if case .matched = $0.outcome { return true } else { return false } }.count
            lines.append("\(check.passed ? "PASS" : "FAIL") \(check.trace.name): \(matched) of \(check.trace.items.count) matched")
            for (item, outcome) in check.outcomes {
                switch outcome {
                case let .matched(position): lines.append("  matched       \(item.jsonText) (result \(position + 1))")
                case .missing: lines.append("  missing       \(item.jsonText)")
                case let .outOfOrder(position): lines.append("  out of order  \(item.jsonText) (result \(position + 1))")
                }
            }
            for (item, count) in check.duplicates {
                lines.append("  duplicated    \(item.jsonText) (\(count) times)")
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

    /// JUnit XML: one test case per trace.
    func junitXML(suiteName: String) -> String {
        let failures = checks.filter { !$0.passed }.count
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites tests="\#(checks.count)" failures="\#(failures)">"# + "\n"
        xml += #"  <testsuite name="\#(Self.escape(suiteName))" tests="\#(checks.count)" failures="\#(failures)">"# + "\n"
        for check in checks {
            xml += #"    <testcase classname="anna.trace" name="\#(Self.escape(check.trace.name))">"#
            if !check.passed {
                let problems = check.outcomes.compactMap { item, outcome -> String? in
                    switch outcome {
                    case .matched: return nil
                    case .missing: return "missing \(item.jsonText)"
                    case .outOfOrder: return "out of order \(item.jsonText)"
                    }
                } + check.duplicates.map { "duplicated \($0.item.jsonText) (\($0.count) times)" }
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
