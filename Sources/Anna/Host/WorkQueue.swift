import DequeModule

/// What a ``Manager`` runs on its script queue besides module operations.
enum ScriptTask: Sendable {
    /// Work that needs the engine; `onFailure` receives its error (else it is reported).
    case engineTask(@Sendable (AnalyticsEngine) throws -> Void, onFailure: (@Sendable (any Error) -> Void)?)
    /// Has the module log its snapshot (and marks the place in the recording).
    case logSnapshot
    /// Reports an error found outside the engine, in its place among the results.
    case report(any Error)
    /// Runs (on the delegate queue) once everything before it was handled and delivered.
    case barrier(@Sendable () -> Void)
    /// Resumes (`true`) or pauses (`false`) the recording, in order with the operations.
    case recording(Bool)
    /// Runs on the script queue once everything before it was handled and its results handed
    /// to the delegate queue (the drain at exit, which must not wait for the delegate queue).
    case handled(@Sendable () -> Void)
}

/// A run of queued work: operations in order (encoded), with the tasks that go between them.
struct WorkChunk: Sendable {
    /// The operations, in the order they were sent.
    var operations = EncodedOperations()
    /// Tasks in order; each runs after the operations before `position` and before the rest.
    var tasks: [(position: Int, task: ScriptTask)] = []

    mutating func removeAll() {
        operations.removeAll()
        tasks.removeAll(keepingCapacity: true)
    }
}

/// The manager's queue between the threads that send work and its script queue.
///
/// Operations are encoded as they arrive (see ``OperationEncoder``), on the sending threads
/// under the queue's lock, so the script queue only copies numbers into JavaScript. Work fills a
/// chunk of at most ``chunkSize`` items; full chunks wait in order. The script
/// queue takes one chunk at a time and gives it back emptied, so a steady stream reuses a
/// few buffers instead of growing (and page-faulting in) one as large as the backlog, and
/// the results of each chunk can be delivered while the next one runs.
struct WorkQueue: Sendable {
    /// Items per chunk: the engine's largest batch.
    static let chunkSize = AnalyticsEngine.maximumBatchSize
    /// Emptied chunks kept for reuse.
    static let spareLimit = 4
    /// The most operations a paused queue holds; later ones are dropped (counted, reported
    /// on resume), so a manager paused for good cannot grow without bound.
    static let pausedLimit = 100_000

    /// Encodes the operations of the chunk being filled (its batch) and keeps the interned
    /// table across chunks.
    private var encoder = OperationEncoder()
    private var fillingTasks: [(position: Int, task: ScriptTask)] = []
    private var full = Deque<WorkChunk>()
    private var spare: [WorkChunk] = []
    /// Whether a drain is scheduled or running (it runs until the queue is empty).
    private var drainScheduled = false
    /// Whether the script queue is paused: work is kept, none is taken.
    private(set) var paused = false
    /// Events appended since the queue was made.
    private(set) var eventCount = 0
    /// Operations dropped since the paused queue became full.
    private(set) var droppedWhilePaused = 0
    /// Whether the first drop of a pause has not been told yet.
    private var dropWarningDue = false

    /// Items in the chunk being filled: its operations are the encoder's batch.
    private var fillingCount: Int { encoder.batch.count + fillingTasks.count }

    mutating func append(_ operation: ModuleOperation, time: Double) {
        guard !refusedWhilePaused() else { return }
        encoder.encode(operation, time: time)
        closeChunkIfFull()
    }

    mutating func appendEvent(id: NodeID, name: String, properties: EventProperties, time: Double) {
        guard !refusedWhilePaused() else { return }
        eventCount += 1
        encoder.encodeEvent(id: id, name: name, properties: properties, time: time)
        closeChunkIfFull()
    }

    mutating func append(_ task: consuming ScriptTask) {
        fillingTasks.append((encoder.batch.count, task))
        closeChunkIfFull()
    }

    /// Marks a drain scheduled; `true` when the caller must schedule it (none was).
    mutating func scheduleDrain() -> Bool {
        if paused { return false }
        defer { drainScheduled = true }
        return !drainScheduled
    }

    /// Pauses or resumes taking work; `true` when the caller must schedule a drain (resumed).
    /// On resume, operations dropped while paused are reported after the ones held.
    mutating func setPaused(_ paused: Bool) -> Bool {
        self.paused = paused
        if !paused, droppedWhilePaused > 0 {
            append(.report(AnalyticsError.pausedOverflow(kept: Self.pausedLimit, dropped: droppedWhilePaused)))
            droppedWhilePaused = 0
            dropWarningDue = false
        }
        return scheduleDrain()
    }

    /// Whether an operation must be dropped: the queue is paused and holds ``pausedLimit``.
    private mutating func refusedWhilePaused() -> Bool {
        guard paused, queuedCount >= Self.pausedLimit else { return false }
        if droppedWhilePaused == 0 { dropWarningDue = true }
        droppedWhilePaused += 1
        return true
    }

    /// `true` once per pause, after its first drop: the caller says so.
    mutating func takeDropWarning() -> Bool {
        defer { dropWarningDue = false }
        return dropWarningDue
    }

    /// Operations queued, not yet taken by the script queue.
    var queuedCount: Int {
        full.reduce(encoder.batch.count) { $0 + $1.operations.count }
    }

    /// The oldest chunk, or `nil` (and no drain scheduled any more) when nothing is queued
    /// or the queue is paused.
    mutating func takeChunk() -> WorkChunk? {
        if paused {
            drainScheduled = false
            return nil
        }
        if let chunk = full.popFirst() { return chunk }
        guard fillingCount > 0 else {
            drainScheduled = false
            return nil
        }
        return takeFilling()
    }

    /// Takes back the buffers of a handled chunk, emptied by the caller (outside the lock).
    mutating func recycle(_ emptied: consuming WorkChunk) {
        guard spare.count < Self.spareLimit else { return }
        spare.append(emptied)
    }

    private mutating func closeChunkIfFull() {
        guard fillingCount >= Self.chunkSize else { return }
        full.append(takeFilling())
    }

    /// The chunk being filled; a new one starts in the buffers of a spare, or in new ones
    /// with room for a whole chunk (while a backlog grows, no spare is left).
    private mutating func takeFilling() -> WorkChunk {
        var chunk = spare.popLast() ?? WorkChunk(operations: EncodedOperations(reservingFor: Self.chunkSize))
        encoder.exchangeBatch(&chunk.operations)
        swap(&chunk.tasks, &fillingTasks)
        return chunk
    }
}
