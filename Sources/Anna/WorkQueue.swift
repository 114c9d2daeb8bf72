import DequeModule

/// What a ``Manager`` runs on its script queue besides module operations.
enum ScriptTask: Sendable {
    /// Work that needs the engine; `onFailure` receives its error (else it is reported).
    case engineTask(@Sendable (AnalyticsEngine) throws -> Void, onFailure: (@Sendable (any Error) -> Void)?)
    /// Runs (on the delegate queue) once everything before it was handled and delivered.
    case barrier(@Sendable () -> Void)
}

/// A run of queued work: operations in order, with the tasks that go between them.
struct WorkChunk: Sendable {
    /// The operations, in the order they were sent.
    var operations: [TimedOperation] = []
    /// Tasks in order; each runs after the operations before `position` and before the rest.
    var tasks: [(position: Int, task: ScriptTask)] = []

    var isEmpty: Bool { operations.isEmpty && tasks.isEmpty }
    var count: Int { operations.count + tasks.count }

    mutating func removeAll() {
        operations.removeAll(keepingCapacity: true)
        tasks.removeAll(keepingCapacity: true)
    }
}

/// The manager's queue between the threads that send work and its script queue.
///
/// Work fills a chunk of at most ``chunkSize`` items; full chunks wait in order. The script
/// queue takes one chunk at a time and gives it back emptied, so a steady stream reuses a
/// few buffers instead of growing (and page-faulting in) one as large as the backlog, and
/// the results of each chunk can be delivered while the next one runs.
struct WorkQueue: Sendable {
    /// Items per chunk: the engine's largest batch.
    static let chunkSize = AnalyticsEngine.maximumBatchSize
    /// Emptied chunks kept for reuse.
    static let spareLimit = 4

    private var filling = WorkChunk()
    private var full = Deque<WorkChunk>()
    private var spare: [WorkChunk] = []
    /// Whether a drain is scheduled or running (it runs until the queue is empty).
    private var drainScheduled = false

    mutating func append(_ operation: consuming TimedOperation) {
        filling.operations.append(operation)
        closeChunkIfFull()
    }

    mutating func append(_ task: consuming ScriptTask) {
        filling.tasks.append((filling.operations.count, task))
        closeChunkIfFull()
    }

    /// Marks a drain scheduled; `true` when the caller must schedule it (none was).
    mutating func scheduleDrain() -> Bool {
        defer { drainScheduled = true }
        return !drainScheduled
    }

    /// The oldest chunk, or `nil` (and no drain scheduled any more) when nothing is queued.
    mutating func takeChunk() -> WorkChunk? {
        if let chunk = full.popFirst() { return chunk }
        guard !filling.isEmpty else {
            drainScheduled = false
            return nil
        }
        defer { filling = spare.popLast() ?? WorkChunk() }
        return filling
    }

    /// Takes back the buffers of a handled chunk, emptied by the caller (outside the lock).
    mutating func recycle(_ emptied: consuming WorkChunk) {
        guard spare.count < Self.spareLimit else { return }
        spare.append(emptied)
    }

    private mutating func closeChunkIfFull() {
        guard filling.count >= Self.chunkSize else { return }
        full.append(filling)
        filling = spare.popLast() ?? WorkChunk()
    }
}
