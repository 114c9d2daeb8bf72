import CoreJS
import Dispatch
import Foundation
import Logging

/// Where a ``Manager``'s results and errors go: to its listeners (``DeliveryListener``: the
/// sink, the async sequences, the delegate, the inspector, in that order), on the delegate
/// queue; errors no listener handles go to the logger.
///
/// Safe from any thread: each listener keeps its state under its own lock, read once per
/// block; delivery runs on the delegate queue, which decodes the results there, off the
/// script queue.
final class ResultDelivery: Sendable {
    /// What the engine produced, or an error the script queue reports in its place.
    enum Part: Sendable {
        case output(EngineOutput.Part)
        case error(any Error)
    }

    private struct Shared {
        var manager = WeakManager()
        var delegateQueue = DispatchQueue(label: "anna.manager.delegate")
    }

    private struct WeakManager: @unchecked Sendable {
        weak var value: Manager?
    }

    private let shared = Locked(Shared())
    /// The blocks handed to the delegate queue and not yet finished, for the drain at exit.
    private let outstanding = Locked(OutstandingBlocks())
    private let logger: Logger
    /// The delegate and the streams, which the manager's public API sets and opens.
    let delegates: DelegateListener
    let streams: StreamListener
    /// Every listener, in the order each result reaches them: those that store results first.
    private let listeners: [any DeliveryListener]
    /// The listeners that store results, which the drain at exit still hands them to.
    private let storingListeners: [any DeliveryListener]
    /// Applied to every result before any listener sees it.
    private let redaction: Redaction?

    /// Delivers to no one until a delegate or a stream is added (but `outbox`, which takes
    /// every result, `inspector`, which sees everything, and the `added` listeners, after
    /// them); unhandled errors go to `logger`.
    init(
        logger: Logger, outbox: (any ResultSink)? = nil, inspector: (any ManagerInspector)? = nil, redaction: Redaction? = nil,
        adding added: [any DeliveryListener] = []
    ) {
        self.logger = logger
        self.redaction = redaction
        delegates = DelegateListener(logger: logger)
        streams = StreamListener()
        // The listeners, one line each (order: the sink, the streams, the delegate, the inspector).
        var listeners: [any DeliveryListener] = []
        if let outbox { listeners.append(SinkListener(sink: outbox)) }
        listeners.append(streams)
        listeners.append(delegates)
        if let inspector { listeners.append(InspectorListener(inspector: inspector)) }
        listeners += added
        storingListeners = listeners.filter(\.storesResults)
        self.listeners = storingListeners + listeners.filter { !$0.storesResults }
    }

    /// Names `manager` (held weakly) as the sender of what is delivered from now on.
    func attach(to manager: Manager) {
        shared.withLock { $0.manager = WeakManager(value: manager) }
    }

    /// The delegate, held weakly.
    var delegate: (any ManagerDelegate)? {
        get { delegates.delegate }
        set { delegates.delegate = newValue }
    }

    /// The level an unhandled error is logged at: warnings as warnings, the rest as errors.
    static func logLevel(of error: any Error) -> Logger.Level {
        if error is NodeMove { return .notice }  // debug mode's account of a move, not a failure
        return (error as? AnalyticsError)?.isFailure == false ? .warning : .error
    }

    /// The queue delegate methods and continuations are called on.
    var delegateQueue: DispatchQueue {
        get { shared.withLock { $0.delegateQueue } }
        set { shared.withLock { $0.delegateQueue = newValue } }
    }

    /// A new sequence of every result delivered from now on.
    func results() -> AsyncStream<AnalyticsResult> {
        streams.results()
    }

    /// A new sequence of every error delivered from now on.
    func errors() -> AsyncStream<any Error> {
        streams.errors()
    }

    /// Hands `parts` to the delegate queue in one block, which decodes the results there
    /// and hands them and the errors to the listeners, in order. With no listener, the
    /// errors go to the logger at once.
    func deliver(_ parts: [Part]) {
        guard !parts.isEmpty else { return }
        let (manager, queue) = shared.withLock { ($0.manager.value, $0.delegateQueue) }
        var receivers: [any DeliveryReceiver] = []
        var storing = 0
        if let manager {
            for listener in listeners {
                guard let receiver = listener.receiver(for: manager) else { continue }
                receivers.append(receiver)
                if listener.storesResults { storing += 1 }
            }
        }
        guard !receivers.isEmpty else {
            for part in parts { Self.forEachError(in: part) { logger.log(level: Self.logLevel(of: $0), "\($0)") } }
            return
        }
        let block = DeliveryBlock(parts: parts, hasReceivers: receivers.contains { $0.takesResults })
        let number = outstanding.withLock { $0.add(block) }
        let multiplex = DeliveryMultiplex(receivers: receivers, storing: storing, logger: logger, block: block, redaction: redaction)
        queue.async {
            guard block.begin() else { return }  // taken by the drain at exit
            defer {
                block.end()
                self.outstanding.withLock { $0.remove(number) }
            }
            multiplex.deliver(block.parts)
        }
    }

    /// The errors of `part` that are not inside a batch still to be decoded (a batch in which
    /// something failed is decoded for its errors' places).
    private static func forEachError(in part: Part, _ body: (any Error) -> Void) {
        switch part {
        case let .error(error): body(error)
        case .output(.results): break  // nothing failed: left undecoded
        case let .output(part): part.forEach(result: { _ in }, error: { body($1) })
        }
    }

    /// The drain at exit: waits for the delegate queue to deliver the blocks handed to it, for
    /// half the time left before `deadline`, unless the exiting thread is the one that would
    /// run them (it is inside one, or the queue is `.main` and it is the main thread). The
    /// blocks not started then are taken, in the order they were handed on: their results go
    /// to the sink only, their errors to the logger, until `deadline`. The blocks being
    /// delivered are returned (``ExitInFlight``): the drain waits for those another thread
    /// delivers, and counts their rest last. Results count as not handed to the delegate only
    /// when a delegate or a result stream was there to take them.
    /// - Returns: The results of the taken blocks that reached no sink (`results`), those the
    ///   delegate never saw, and the blocks being delivered.
    func drainAtExit(before deadline: ContinuousClock.Instant) -> (results: Int, undelivered: Int, inFlight: ExitInFlight) {
        let thread = DeliveryBlock.currentThread()
        let queue = delegateQueue
        let blocked = (queue === DispatchQueue.main && Thread.isMainThread) || outstanding.withLock { $0.isRunning(on: thread) }
        if !blocked {
            let waitEnd = ContinuousClock.now + (deadline - ContinuousClock.now) / 2  // the rest to take over
            ExitDrain.wait(before: waitEnd) { !outstanding.withLock { $0.blocks.isEmpty } }
        }
        var results = 0
        var undelivered = 0
        var running: [DeliveryBlock] = []
        let blocks = outstanding.withLock { $0.blocks.sorted { $0.key < $1.key }.map(\.value) }
        for block in blocks {
            if block.claim() {
                let (stored, total): (Int, Int)
                if ContinuousClock.now < deadline {
                    (stored, total) = deliverToSinkOnly(block.parts)
                } else {
                    // Past the deadline: counted, not stored (nothing missed without a sink).
                    total = Self.resultCount(of: block.parts)
                    stored = storingListeners.isEmpty ? total : 0
                }
                results += total - stored
                undelivered += block.hasReceivers ? total : 0
            } else {
                running.append(block)  // being delivered (elsewhere, or below the exit on this thread)
            }
        }
        return (results, undelivered, ExitInFlight(blocks: running, storing: !storingListeners.isEmpty, exitingThread: thread))
    }

    /// Hands the results of `parts` to the listeners that store results, from the exiting
    /// thread (errors go to the logger).
    /// - Returns: How many results every such listener took, of how many.
    private func deliverToSinkOnly(_ parts: [Part]) -> (stored: Int, total: Int) {
        var receivers: [any DeliveryReceiver] = []
        if let manager = shared.withLock({ $0.manager.value }) {
            receivers = storingListeners.compactMap { $0.receiver(for: manager) }
        }
        var stored = 0
        var total = 0
        func send(_ given: AnalyticsResult) {
            total += 1
            let kept: AnalyticsResult? = if let redaction { redaction.redact(given) } else { given }
            guard let result = kept else {
                stored += 1  // dropped by the redaction: nothing to store
                return
            }
            var refused = false
            for index in receivers.indices {
                do {
                    try receivers[index].receive(result)
                } catch {
                    refused = true
                    logger.error("\(error)")
                }
            }
            if !refused { stored += 1 }  // with no sink, only the delegate misses it
        }
        for part in parts {
            switch part {
            case let .output(output):
                output.forEach(result: send) { _, error in logger.log(level: Self.logLevel(of: error), "\(error)") }
            case let .error(error): logger.log(level: Self.logLevel(of: error), "\(error)")
            }
        }
        return (stored, total)
    }

    /// How many results `parts` hold.
    static func resultCount(of parts: [Part]) -> Int {
        var count = 0
        for case let .output(part) in parts { count += part.resultCount }
        return count
    }
}

/// The blocks the drain at exit found being delivered, counted after the sinks' drain: what
/// they have not handed on by then reached no sink.
struct ExitInFlight: Sendable {
    let blocks: [DeliveryBlock]
    /// Whether a listener stores results (without one, no result goes unstored).
    let storing: Bool
    /// The thread running the drain (a block it is inside cannot go on while it waits).
    let exitingThread: UInt

    /// Whether another thread is still delivering one of the blocks (making progress: its
    /// results reach the sink as it goes, so the drain waits for it).
    var isRunningElsewhere: Bool {
        blocks.contains { $0.isRunning(elsewhereThan: exitingThread) }
    }

    /// The results not handed on yet: to no sink (`results`, when one stores them) and to
    /// no delegate (when one was there to take them).
    func rest() -> (results: Int, undelivered: Int) {
        var results = 0
        var undelivered = 0
        for block in blocks {
            let rest = max(0, ResultDelivery.resultCount(of: block.parts) - block.deliveredCount)
            results += storing ? rest : 0
            undelivered += block.hasReceivers ? rest : 0
        }
        return (results, undelivered)
    }
}

/// The blocks a ``ResultDelivery`` handed to the delegate queue and not yet finished.
private struct OutstandingBlocks {
    var blocks: [Int: DeliveryBlock] = [:]
    private var next = 0

    mutating func add(_ block: DeliveryBlock) -> Int {
        next += 1
        blocks[next] = block
        return next
    }

    mutating func remove(_ number: Int) {
        blocks[number] = nil
    }

    /// Whether a block is being delivered on `thread`.
    func isRunning(on thread: UInt) -> Bool {
        blocks.values.contains { $0.runningThread == thread }
    }
}
