import Anna
import CoreJS

/// Counts the core's errors of a replay by kind, for the summary line and `--strict`.
///
/// A replay goes on after a core error (the next line may well work), so without a count a
/// run whose every task threw would look like a run with nothing to report. The summary
/// names the kinds: `anna: 3 errors (2 tasks failed, 1 task file failed to load)`.
struct CoreErrorTally {
    /// The kinds, in the order the summary names them.
    enum Kind: CaseIterable {
        case taskFailed, taskFileFailed, nodeError, timeLimit, memoryLimit, builtIns, other

        /// `1 task failed`, `2 tasks failed`, ….
        func phrase(_ count: Int) -> String {
            let plural = count != 1
            switch self {
            case .taskFailed: return "\(count) \(plural ? "tasks" : "task") failed"
            case .taskFileFailed: return "\(count) task \(plural ? "files" : "file") failed to load"
            case .nodeError: return "\(count) node \(plural ? "errors" : "error")"
            case .timeLimit: return "\(count) \(plural ? "operations" : "operation") stopped at the time limit"
            case .memoryLimit: return "\(count) stopped at the memory limit"
            case .builtIns: return "\(count) \(plural ? "times" : "time") built-ins replaced"
            case .other: return "\(count) other"
            }
        }
    }

    private(set) var counts: [Kind: Int] = [:]

    /// The number of errors counted.
    var total: Int { counts.values.reduce(0, +) }

    /// Counts `error` (each failed task of a ``AnalyticsError/tasksFailed(_:)`` once).
    mutating func count(_ error: any Error) {
        guard let error = error as? AnalyticsError else {
            counts[.other, default: 0] += 1
            return
        }
        switch error {
        case let .tasksFailed(failures):
            counts[.taskFailed, default: 0] += failures.count
        case .operationFailed(_, .executionTimeLimitExceeded):
            counts[.timeLimit, default: 0] += 1
        case .operationFailed(_, .memoryLimitExceeded):
            counts[.memoryLimit, default: 0] += 1
        default:
            switch error.exception?.name {
            case "LoadError": counts[.taskFileFailed, default: 0] += 1
            case "BuiltInError": counts[.builtIns, default: 0] += 1
            case "NodeError": counts[.nodeError, default: 0] += 1
            default: counts[.other, default: 0] += 1
            }
        }
    }

    /// `3 errors (2 tasks failed, 1 task file failed to load)`.
    var description: String {
        let parts = Kind.allCases.compactMap { kind in counts[kind].map { kind.phrase($0) } }
        return "\(total) \(total == 1 ? "error" : "errors") (\(parts.joined(separator: ", ")))"
    }
}
