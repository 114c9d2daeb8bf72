import CoreJS

extension AnalyticsError {
    /// The error an operation failed with: failed tasks, a result warning, the time limit
    /// (naming `runningTask`, the task that was running, when the core says), or the
    /// operation itself.
    /// `inPromiseJob`: the stop came after the operation's own code, in a promise job (code
    /// after `await`, a `then` callback) that it or an operation before it queued.
    static func failure(
        of operation: ModuleOperation, _ error: JavaScriptError, runningTask: String? = nil, inPromiseJob: Bool = false
    ) -> AnalyticsError {
        // What was stopped, and (a promise job running after the operations of its call is not
        // the last one's doing) what failed.
        var stopped: String {
            inPromiseJob ? "a promise job (code after await, a then callback) of " + (runningTask ?? "a task") : runningTask ?? operation.summary
        }
        var failed: String { inPromiseJob ? "the promise jobs after \(operation.summary)" : operation.summary }
        switch error {
        case .executionTimeLimitExceeded(_, let limit):
            return .operationFailed(operation: failed, .executionTimeLimitExceeded(operation: stopped, limitSeconds: limit))
        case let .memoryLimitExceeded(_, limit, heap):
            return .operationFailed(
                operation: failed, .memoryLimitExceeded(operation: stopped + ", which was stopped", limitBytes: limit, heapBytes: heap))
        default:
            if let failures = taskFailures(in: error) { return .tasksFailed(failures) }
            if let warning = resultWarning(in: error) { return .resultWarning(warning) }
            return .operationFailed(operation: operation.summary, error)
        }
    }

    /// The core reports failed tasks as one `TaskError` whose `errors` lists each failure.
    static func taskFailures(in error: JavaScriptError) -> [TaskFailure]? {
        guard let exception = error.exception, exception.name == "TaskError",
            let entries = exception.thrownValue["errors"]?.arrayValue
        else { return nil }
        return entries.map { entry in
            TaskFailure(
                task: entry["task"]?.stringValue ?? "", path: entry["path"]?.stringValue ?? "",
                event: entry["event"]?.stringValue ?? "", message: entry["message"]?.stringValue ?? "",
                stack: entry["stack"]?.stringValue, location: TaskLocation(fields: entry),
                errorLocation: TaskLocation(fields: entry, prefix: "error")?.description)
        }
    }

    /// A `ResultWarning` the core reported through `config.report`.
    static func resultWarning(in error: JavaScriptError) -> ResultWarning? {
        guard let exception = error.exception, exception.name == "ResultWarning" else { return nil }
        let fields = exception.thrownValue
        return ResultWarning(
            task: fields["task"]?.stringValue ?? "", path: fields["path"]?.stringValue ?? "",
            event: fields["event"]?.stringValue ?? "", location: fields["location"].flatMap { TaskLocation(fields: $0) },
            message: exception.message)
    }
}
