import Anna
import CoreJS

/// The coverage of a whole bulk replay: the engines' coverage after each session, merged, so
/// that a task file counts as loaded when any session loaded it, and a task as run when it ran
/// in any session.
///
/// Each session's coverage is read only while the merged one still has a gap that matters (a
/// task file never loaded, or, for `--require-coverage`, a task that never ran): once every
/// file loaded and every task ran, sessions go on without the extra call.
final class CoverageTally: Sendable {
    private struct State {
        var merged: Coverage?
        /// Why a session's coverage could not be read (the first time), or `nil`.
        var failure: String?
    }

    /// Whether tasks that never ran matter (`--require-coverage`), not only task files.
    private let countsTasks: Bool
    private let state = Locked(State())

    init(countsTasks: Bool) {
        self.countsTasks = countsTasks
    }

    /// The merged coverage; `nil` when no session's coverage could be read.
    var coverage: Coverage? { state.withLock { $0.merged } }

    /// Why some session's coverage could not be read, or `nil`.
    var failure: String? { state.withLock { $0.failure } }

    /// Whether the next session's coverage is still needed.
    var wantsMore: Bool {
        state.withLock { state in
            guard state.failure == nil else { return false }
            guard let merged = state.merged else { return true }
            return merged.files.contains { $0.status == .neverLoaded } || (countsTasks && !merged.tasksNeverFired.isEmpty)
        }
    }

    /// Reads `engine`'s coverage, when still needed, and merges it.
    func add(from engine: AnalyticsEngine) {
        guard wantsMore else { return }
        let coverage: Coverage
        do {
            coverage = try engine.coverage()
        } catch {
            state.withLock { $0.failure = $0.failure ?? "\(error)" }
            return
        }
        state.withLock { state in
            state.merged = state.merged.map { Self.merge($0, coverage) } ?? coverage
        }
    }

    /// `first` and `second` as one: each file with the best status either had (loaded, then
    /// failed, then missing, then never loaded), each task with the runs of both, each
    /// namespace once.
    static func merge(_ first: Coverage, _ second: Coverage) -> Coverage {
        var merged = first
        for file in second.files {
            guard let index = merged.files.firstIndex(where: { $0.file == file.file }) else {
                merged.files.append(file)
                continue
            }
            if rank(file.status) < rank(merged.files[index].status) { merged.files[index] = file }
        }
        for task in second.tasks {
            guard let index = merged.tasks.firstIndex(where: { $0.task == task.task && $0.location == task.location }) else {
                merged.tasks.append(task)
                continue
            }
            merged.tasks[index].matches += task.matches
            merged.tasks[index].failures += task.failures
        }
        for namespace in second.namespaces where !merged.namespaces.contains(where: { $0.namespace == namespace.namespace }) {
            merged.namespaces.append(namespace)
        }
        return merged
    }

    /// Lower is better.
    private static func rank(_ status: Coverage.File.Status) -> Int {
        switch status {
        case .loaded: return 0
        case .failed: return 1
        case .missing: return 2
        case .neverLoaded: return 3
        }
    }
}
