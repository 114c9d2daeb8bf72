/// Why a benchmark run stopped. Every case is fatal: a benchmark that measured something
/// other than what it claims must not print a figure.
enum BenchError: Error, CustomStringConvertible {
    /// The delegate saw a different number of results than the task set implies.
    case wrongResultCount(scenario: String, expected: ExpectedResults, got: ResultTally)
    /// The module reported errors (a task threw, a node was unknown, the module did not load).
    case moduleErrors(scenario: String, count: Int, first: String)
    /// A measurement child process failed or printed something that is not one JSON line.
    case childFailed(arguments: [String], status: Int32, output: String)
    /// `/proc/self/statm` could not be read.
    case memoryUnavailable(String)
    /// A file given on the command line could not be read or parsed.
    case unreadableFile(path: String, reason: String)
    /// The temporary module folder could not be written.
    case workspaceFailed(path: String, reason: String)
    /// An outbox measurement kept, dropped or delivered other than every result.
    case measurementFailed(String)

    var description: String {
        switch self {
        case let .wrongResultCount(scenario, expected, got):
            return "\(scenario): expected \(expected.total) results (\(expected.selected) selected, "
                + "\(expected.updated) updated, 0 appeared) but the delegate got \(got.total) "
                + "(\(got.selected) selected, \(got.updated) updated, \(got.appeared) appeared, "
                + "\(got.unexpected) unexpected\(got.firstUnexpected.map { ", first unexpected: \($0)" } ?? ""))"
        case let .moduleErrors(scenario, count, first):
            return "\(scenario): the module reported \(count) error(s); first: \(first)"
        case let .childFailed(arguments, status, output):
            let shown = output.isEmpty ? "no output" : "output: \(output.prefix(500))"
            return "measurement `anna-bench \(arguments.joined(separator: " "))` failed (status \(status), \(shown))"
        case let .memoryUnavailable(reason):
            return "cannot read resident memory: \(reason)"
        case let .unreadableFile(path, reason):
            return "cannot read \(path): \(reason)"
        case let .workspaceFailed(path, reason):
            return "cannot prepare the module folder \(path): \(reason)"
        case let .measurementFailed(reason):
            return reason
        }
    }
}
