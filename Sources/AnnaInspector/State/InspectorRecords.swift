import Anna
import CoreJS

/// One result as the inspector keeps it.
struct InspectedResult: Sendable {
    /// Its place among every result seen (from 1); the API's cursor.
    var sequence: Int
    /// When it reached the inspector, ms since the epoch.
    var time: Double
    var result: AnalyticsResult
    /// The stream line whose operation produced it (recorded streams only).
    var line: Int?

    var json: JSONValue {
        .fields([
            "seq": .int(sequence), "time": .number(time), "value": result.value, "task": result.meta.map { .string($0.task) },
            "path": result.meta.map { .string($0.path) }, "event": result.meta.map { .string($0.event) }, "line": line.json,
        ])
    }
}

/// One error (or warning) as the inspector keeps it: a failed task is one entry each.
struct InspectedError: Sendable {
    var sequence: Int
    var time: Double
    /// `error` or `warning`.
    var level: String
    var message: String
    /// `file:line:column` where it was thrown or made, when known.
    var location: String?
    var stack: String?
    var task: String?
    var path: String?
    var line: Int?

    var json: JSONValue {
        .fields([
            "seq": .int(sequence), "time": .number(time), "level": .string(level), "message": .string(message),
            "location": location.json, "stack": stack.json, "task": task.json, "path": path.json, "line": line.json,
        ])
    }

    /// The entries for `error`: one per failed task, else one.
    static func entries(for error: any Error, time: Double, line: Int?) -> [InspectedError] {
        switch error {
        case let AnalyticsError.tasksFailed(failures):
            return failures.map { failure in
                InspectedError(
                    sequence: 0, time: time, level: "error", message: failure.description,
                    location: failure.errorLocation ?? failure.location?.description, stack: failure.stack, task: failure.task,
                    path: failure.path, line: line)
            }
        case let error as AnalyticsError:
            let exception = error.exception
            return [
                InspectedError(
                    sequence: 0, time: time, level: error.isFailure ? "error" : "warning", message: error.description,
                    location: exception?.location, stack: exception?.stack, line: line)
            ]
        case let move as NodeMove:  // debug mode's account of a node that moved, not a failure
            return [InspectedError(sequence: 0, time: time, level: "notice", message: move.description, line: line)]
        default:
            return [InspectedError(sequence: 0, time: time, level: "error", message: "\(error)", line: line)]
        }
    }
}

/// A registration, event or removal, as the page flashes it. Kept as it came (no text is
/// made on a manager's hot path); ``json`` writes it.
struct InspectedOperation: Sendable {
    var sequence: Int
    var time: Double
    var operation: ModuleOperation
    var line: Int?

    var isEvent: Bool {
        if case .event = operation { return true }
        return false
    }

    var json: JSONValue {
        let (kind, node, name): (String, NodeID, String?) =
            switch operation {
            case let .register(id, _, name, _, _, _): ("register", id, name)
            case let .event(id, name, _): ("event", id, name)
            case let .deregister(id): ("deregister", id, nil)
            }
        return .fields([
            "seq": .int(sequence), "time": .number(time), "kind": .string(kind), "node": .string(node.description), "name": name.json,
            "line": line.json,
        ])
    }
}
