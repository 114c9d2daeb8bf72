import Anna
import CoreJS
import Foundation

// What the API's routes (and a report) answer, built from the inspector's state and its subject.
extension Inspector {
    func requireSubject() throws -> any InspectedSubject {
        guard let subject = subject else { throw InspectorError.noSubject }
        return subject
    }

    func requirePlayback() throws -> any StreamPlayback {
        guard let playback = try requireSubject().playback else { throw InspectorError.notARecordedStream }
        return playback
    }

    /// `{paused, debug, generation, playback?: {line, lineCount}}`.
    func stateJSON() async throws -> JSONValue {
        let subject = try requireSubject()
        let playback = subject.playback
        return .fields([
            "paused": .bool(subject.isPaused), "debug": .bool(subject.isDebug), "generation": .int(state.read().generation),
            "playback": playback.map { .fields(["line": .int($0.line), "lineCount": .int($0.lineCount)]) },
        ])
    }

    /// The coverage (tasks per file) and the files switched off.
    func tasksJSON() async throws -> JSONValue {
        let subject = try requireSubject()
        let coverage = try await subject.coverage()
        let disabled = try await subject.disabledTaskFiles()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(coverage), as: UTF8.self)
        return .fields([
            "coverage": try JSONValue(parsing: text), "disabled": .array(disabled.map(JSONValue.string)),
        ])
    }

    /// Results after `after`, newest first, at most `limit` (at most the result limit), those
    /// of `task` (exact) and below `path` (a prefix) only.
    func resultsJSON(after: Int = 0, limit: Int? = nil, task: String? = nil, path: String? = nil) -> JSONValue {
        let limit = min(limit ?? state.resultLimit, state.resultLimit)
        let (results, cursor) = state.results(after: after, limit: state.resultLimit)
        let kept = results.reversed().filter { entry in
            (task == nil || entry.result.meta?.task == task) && (path == nil || entry.result.meta?.path.hasPrefix(path ?? "") == true)
        }
        return .fields([
            "cursor": .int(cursor), "generation": .int(state.read().generation),
            "results": .array(kept.prefix(max(0, limit)).map(\.json)),
        ])
    }

    /// Errors after `after`, newest first.
    func errorsJSON(after: Int) -> JSONValue {
        let store = state.read()
        return .fields([
            "cursor": .int(store.errorCount), "generation": .int(store.generation),
            "errors": .array(store.errors.filter { $0.sequence > after }.reversed().map(\.json)),
        ])
    }

    /// The snapshot in `format` (`json`, `markup` or `dot`), its media type and file ending.
    func snapshot(format: String) async throws -> (String, String, String) {
        let subject = try requireSubject()
        switch format {
        case "json": return (try await subject.snapshot(format: .json), "application/json; charset=utf-8", "json")
        case "markup": return (try await subject.snapshot(format: .markup), "text/plain; charset=utf-8", "xml")
        case "dot":
            return (try DotRenderer.render(snapshotJSON: try await subject.snapshot(format: .json)), "text/vnd.graphviz; charset=utf-8", "dot")
        default: throw InspectorError.badRequest("unknown format '\(format)': use json, markup or dot")
        }
    }

    /// Switches the file named by `{"file": path}` or `{"namespace": "Lib.Alpha"}`.
    func setTaskFile(_ body: JSONValue, enabled: Bool) async throws {
        let subject = try requireSubject()
        if let file = body["file"]?.stringValue {
            try await subject.setTaskFile(file, enabled: enabled)
        } else if let namespace = body["namespace"]?.stringValue {
            let coverage = try await subject.coverage()
            guard let entry = coverage.namespaces.first(where: { $0.namespace == namespace }) else {
                throw InspectorError.badRequest("no registered node has the namespace '\(namespace)'")
            }
            try await subject.setTaskFile(entry.file, enabled: enabled)
        } else {
            throw InspectorError.badRequest("send {\"file\": \"/abs/path.js\"} or {\"namespace\": \"Lib.Alpha\"}")
        }
    }

    /// The namespace of each node registered with one, by node ID.
    func namespacesJSON() -> JSONValue {
        .object(.init(uniqueKeysWithValues: state.read().namespaces.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
    }
}
