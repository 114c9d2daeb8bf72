import CoreJS

/// One client's event stream: what changed since it last looked, as server-sent events.
///
/// Events: `results`, `errors` and `operations` (arrays, oldest first), `stats` (the
/// figures, every fifth tick), `state` (when paused, debug or the line changed) and `reset`
/// (the session started over: drop what you have).
struct EventFeed {
    let server: InspectorServer
    private var generation = 0
    private var resultCursor = 0
    private var errorCursor = 0
    private var operationCursor = 0
    private var lastState = ""
    private var tick = 0

    init(server: InspectorServer) {
        self.server = server
    }

    /// The messages of this tick (empty when nothing changed).
    mutating func next() async -> String {
        var text = ""
        let store = server.inspector.state.read()
        if store.generation != generation {
            if generation != 0 { text += Self.message("reset", .fields(["generation": .int(store.generation)])) }
            generation = store.generation
            resultCursor = 0
            errorCursor = 0
            operationCursor = 0
        }
        let results = store.results.after(resultCursor)
        if !results.isEmpty {
            text += Self.message("results", .array(results.map(\.json)))
            resultCursor = store.resultCount
        }
        let errors = store.errors.filter { $0.sequence > errorCursor }
        if !errors.isEmpty {
            text += Self.message("errors", .array(errors.map(\.json)))
            errorCursor = store.errorCount
        }
        let operations = store.operations.filter { $0.sequence > operationCursor }
        if !operations.isEmpty {
            text += Self.message("operations", .array(operations.map(\.json)))
            operationCursor = store.operationCount
        }
        do {
            let state = try await server.inspector.stateJSON()
            let stateText = state.jsonText
            if stateText != lastState {
                text += Self.message("state", state)
                lastState = stateText
            }
        } catch {
            text += Self.message("state", .fields(["error": .string("\(error)")]))
        }
        if tick % 5 == 0 { text += Self.message("stats", await server.figures.figures()) }
        tick += 1
        return text
    }

    /// `event: NAME` and one `data:` line (compact JSON holds no line break).
    static func message(_ name: String, _ data: JSONValue) -> String {
        "event: \(name)\ndata: \(data.jsonText)\n\n"
    }
}
