import CoreJS

/// A task that threw while handling an event.
public struct TaskFailure: Sendable, Equatable, CustomStringConvertible {
    /// The task's pattern.
    public var task: String
    /// The path of the node the event happened on.
    public var path: String
    /// The event's name.
    public var event: String
    /// The message of what the task threw.
    public var message: String
    /// The JavaScript stack of what the task threw, when known.
    public var stack: String?

    /// Creates a failure record.
    public init(task: String, path: String, event: String, message: String, stack: String? = nil) {
        self.task = task
        self.path = path
        self.event = event
        self.message = message
        self.stack = stack
    }

    /// `task 'p' on '/path' (event): message`.
    public var description: String {
        "task '\(task)' on '\(path)' (\(event)): \(message)"
    }
}

/// What can go wrong between the host and an analytics module.
public enum AnalyticsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The module (or the core it requires) could not be loaded: missing file, syntax error, …
    case moduleLoadFailed(module: String, JavaScriptError)
    /// The module's exports are not a constructor `(receive, config) => manager`.
    case moduleNotConstructor(module: String, found: String)
    /// A module operation threw (unknown node, malformed pattern, …); `operation` names it.
    case operationFailed(operation: String, JavaScriptError)
    /// One or more tasks threw while handling an event; the other tasks still ran.
    case tasksFailed([TaskFailure])
    /// In debug mode, more operations arrived while the module failed to load than are kept
    /// for replay; the oldest were dropped.
    case backlogOverflow(kept: Int)
    /// The session recording could not be written; recording stopped.
    case recordingFailed(path: String, reason: String)

    /// One line (or one line per failed task).
    public var description: String {
        switch self {
        case let .moduleLoadFailed(module, error):
            return "cannot load analytics module \(module): \(error)"
        case let .moduleNotConstructor(module, found):
            return "analytics module \(module) must export a constructor (receive, config) => manager, found \(found)"
        case let .operationFailed(operation, error):
            // The core's own errors point into the core, which says nothing to the user.
            if let exception = error.exception, Self.coreErrorNames.contains(exception.name) {
                return "\(operation) failed: \(exception.name): \(exception.message)"
            }
            return "\(operation) failed: \(error)"
        case let .tasksFailed(failures):
            return failures.map(\.description).joined(separator: "\n")
        case let .backlogOverflow(kept):
            return "the module still fails to load; only the last \(kept) operations are kept for replay"
        case let .recordingFailed(path, reason):
            return "cannot record the session to \(path): \(reason); recording stopped"
        }
    }

    /// Errors the bundled core raises about the caller's input (their location is in the core).
    static let coreErrorNames: Set<String> = ["AnnaError", "NodeError", "PatternError", "TaskError"]

    /// The JavaScript exception behind the error, when there is one.
    public var exception: JavaScriptException? {
        switch self {
        case let .moduleLoadFailed(_, error), let .operationFailed(_, error): return error.exception
        case .moduleNotConstructor, .tasksFailed, .backlogOverflow, .recordingFailed: return nil
        }
    }
}
