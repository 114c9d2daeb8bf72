import CoreJS

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
    /// While the manager was paused (``Manager/pause()``), more operations were sent than it
    /// holds (`kept`); the `dropped` ones sent after that were dropped. Reported on resume.
    case pausedOverflow(kept: Int, dropped: Int)
    /// The session recording could not be written; recording stopped.
    case recordingFailed(path: String, reason: String)
    /// A task's result lost part of its value on the way (a function or a symbol was
    /// dropped); the rest was delivered. Reported once per task; not a failure.
    case resultWarning(ResultWarning)
    /// In debug mode: an analyzer's events have waited for a parent for longer than
    /// ``Manager/Dependency/waitingEventsReportDelay`` (its responder chain reaches no enabled analyzer
    /// under a ``RootAnalyzer``). `chain` lists the type names it walked. Not a failure.
    case eventsWaiting(owner: String, chain: [String], events: Int)

    /// One line (or one line per failed task).
    public var description: String {
        switch self {
        case let .moduleLoadFailed(module, error):
            return "cannot load analytics module \(module): \(error)"
        case let .moduleNotConstructor(module, found):
            return "analytics module \(module) must export a constructor (receive, config) => manager, found \(found)"
        case let .operationFailed(operation, error):
            // A task file the core did not load names the file and the line itself
            // (`task file index.js was not loaded: malformed pattern … at index.js:2:1: …`);
            // the operation that happened to load it says nothing more.
            if let exception = error.exception, exception.name == "LoadError", exception.thrownValue["taskFile"]?.stringValue != nil {
                return exception.message
            }
            // The core's own errors point into the core, which says nothing to the user.
            if let exception = error.exception, Self.coreErrorNames.contains(exception.name) {
                return "\(operation) failed: \(exception.name): \(exception.message)"
            }
            return "\(operation) failed: \(error)"
        case let .tasksFailed(failures):
            return failures.map(\.description).joined(separator: "\n")
        case let .backlogOverflow(kept):
            return "the module still fails to load; only the last \(kept) operations are kept for replay"
        case let .pausedOverflow(kept, dropped):
            return "while the manager was paused, \(dropped) operation\(dropped == 1 ? " was" : "s were") dropped: "
                + "a paused manager holds at most \(kept) operations; resume it sooner"
        case let .recordingFailed(path, reason):
            return "cannot record the session to \(path): \(reason); recording stopped"
        case let .resultWarning(warning):
            return "warning: \(warning)"
        case let .eventsWaiting(owner, chain, events):
            let walked = chain.isEmpty ? "no parent at all" : chain.joined(separator: " → ")
            return "warning: \(events) event(s) of a \(owner) are waiting for a parent: its chain (\(walked)) "
                + "reaches no enabled analyzer under a RootAnalyzer; give the chain a root or add it as a sub-analyzer"
        }
    }

    /// Whether the error is a failure (something did not happen), as opposed to a warning
    /// (``resultWarning(_:)``, ``eventsWaiting(owner:chain:events:)``).
    public var isFailure: Bool {
        switch self {
        case .resultWarning, .eventsWaiting: return false
        default: return true
        }
    }

    /// Errors the bundled core raises about the caller's input (their location is in the core).
    static let coreErrorNames: Set<String> = ["AnnaError", "NodeError", "PatternError", "TaskError"]

    /// The JavaScript exception behind the error, when there is one.
    public var exception: JavaScriptException? {
        switch self {
        case let .moduleLoadFailed(_, error), let .operationFailed(_, error): return error.exception
        case .moduleNotConstructor, .tasksFailed, .backlogOverflow, .pausedOverflow, .recordingFailed, .resultWarning, .eventsWaiting:
            return nil
        }
    }
}
