import CoreJS
import Dispatch
import Foundation
import Logging

/// Where a ``Manager``'s results and errors go: its delegate on the delegate queue, and the
/// async sequences handed out by ``Manager/results()`` and ``Manager/errors()``.
///
/// Safe from any thread: the observers are kept under a lock, and delivery runs on the
/// delegate queue, which decodes pending batches there, off the script queue.
final class ResultDelivery: Sendable {
    /// A result, a batch of results still to be decoded, or an error.
    enum Part: Sendable {
        case result(AnalyticsResult)
        case pending(PendingResults)
        case error(any Error)
    }

    private let observers = Locked(Observers())
    /// The blocks handed to the delegate queue and not yet finished, for the drain at exit.
    private let outstanding = Locked(OutstandingBlocks())
    private let logger: Logger
    private let outbox: (any ResultSink)?
    private let inspector: (any ManagerInspector)?

    /// Delivers to no one until a delegate or a stream is added (but `outbox`, which takes
    /// every result, and `inspector`, which sees everything); unhandled errors go to `logger`.
    init(logger: Logger, outbox: (any ResultSink)? = nil, inspector: (any ManagerInspector)? = nil) {
        self.logger = logger
        self.outbox = outbox
        self.inspector = inspector
    }

    /// The sequences handed out end with the manager (their consumers' loops end).
    deinit {
        let (results, errors) = observers.withLock { (Array($0.resultContinuations.values), Array($0.errorContinuations.values)) }
        for continuation in results { continuation.finish() }
        for continuation in errors { continuation.finish() }
    }

    /// The delegate, held weakly.
    var delegate: (any ManagerDelegate)? {
        get { observers.withLock { $0.delegate.value } }
        set {
            observers.withLock {
                $0.delegate = WeakDelegate(value: newValue)
                $0.delegateWasSet = newValue != nil
                $0.releaseReported = false
            }
        }
    }

    /// The level an unhandled error is logged at: warnings as warnings, the rest as errors.
    static func logLevel(of error: any Error) -> Logger.Level {
        if error is NodeMove { return .notice }  // debug mode's account of a move, not a failure
        return (error as? AnalyticsError)?.isFailure == false ? .warning : .error
    }

    /// The queue delegate methods and continuations are called on.
    var delegateQueue: DispatchQueue {
        get { observers.withLock { $0.delegateQueue } }
        set { observers.withLock { $0.delegateQueue = newValue } }
    }

    /// A new sequence of every result delivered from now on.
    func results() -> AsyncStream<AnalyticsResult> {
        let (stream, continuation) = AsyncStream<AnalyticsResult>.makeStream()
        let token = observers.withLock { $0.add(continuation, to: \.resultContinuations) }
        continuation.onTermination = { [weak self] _ in
            self?.observers.withLock { $0.resultContinuations[token] = nil }
        }
        return stream
    }

    /// A new sequence of every error delivered from now on.
    func errors() -> AsyncStream<any Error> {
        let (stream, continuation) = AsyncStream<any Error>.makeStream()
        let token = observers.withLock { $0.add(continuation, to: \.errorContinuations) }
        continuation.onTermination = { [weak self] _ in
            self?.observers.withLock { $0.errorContinuations[token] = nil }
        }
        return stream
    }

    /// Hands `parts` to the delegate queue in one block, which decodes the pending batches
    /// there and delivers everything in order, naming `manager` as the sender.
    func deliver(_ parts: [Part], from manager: Manager) {
        guard !parts.isEmpty else { return }
        let (delegate, queue, resultContinuations, errorContinuations, released) = observers.withLock { observers in
            let delegate = observers.delegate.value
            let released = delegate == nil && observers.delegateWasSet && !observers.releaseReported
            if released { observers.releaseReported = true }
            return (
                delegate, observers.delegateQueue, Array(observers.resultContinuations.values),
                Array(observers.errorContinuations.values), released
            )
        }
        if released {
            logger.warning(
                "the manager's delegate was released, so results are no longer delivered to it: the manager holds its delegate weakly; keep a strong reference to it"
            )
        }
        let outbox = outbox
        let inspector = inspector
        let logger = logger
        if delegate == nil, errorContinuations.isEmpty, outbox == nil, inspector == nil {
            for case let .error(error) in parts { logger.log(level: Self.logLevel(of: error), "\(error)") }
        }
        guard delegate != nil || !resultContinuations.isEmpty || !errorContinuations.isEmpty || outbox != nil || inspector != nil
        else { return }
        let keptPerBlock = inspector?.resultsKeptPerBlock ?? 0
        let block = DeliveryBlock(parts: parts, hasReceivers: delegate != nil || !resultContinuations.isEmpty)
        let number = outstanding.withLock { $0.add(block) }
        queue.async {
            guard block.begin() else { return }  // taken by the drain at exit
            defer {
                block.end()
                self.outstanding.withLock { $0.remove(number) }
            }
            var inspected = inspector.map { _ in DeliveredBlockCollector(limit: keptPerBlock) }
            func report(_ error: any Error) {
                for continuation in errorContinuations { continuation.yield(error) }
                if let delegate {
                    delegate.manager(manager, didCatch: error)
                } else if errorContinuations.isEmpty {
                    logger.log(level: Self.logLevel(of: error), "\(error)")
                }
                inspected?.keep(error)
            }
            func send(_ result: consuming AnalyticsResult) {
                if let outbox {
                    do { try outbox.append(result, time: Manager.now()) } catch { report(error) }
                }
                block.countDelivered()
                for continuation in resultContinuations { continuation.yield(copy result) }
                delegate?.manager(manager, didSend: result)
                inspected?.keep(result)
            }
            for part in block.parts {
                switch part {
                case let .result(result): send(result)
                case let .pending(pending):
                    do {
                        try pending.forEachResult { _, result in send(result) }
                    } catch {
                        report(error)
                    }
                case let .error(error): report(error)
                }
            }
            if let inspector, let block = inspected?.block(), !block.isEmpty { inspector.manager(manager, didDeliver: block) }
        }
    }

    /// The drain at exit: waits for the delegate queue to deliver the blocks handed to it, for
    /// half the time left before `deadline`, unless the exiting thread is the one that would
    /// run them (it is inside one, or the queue is `.main` and it is the main thread). The
    /// blocks not started then are taken, in the order they were handed on: their results go
    /// to the sink only, their errors to the logger, until `deadline`; the results of the
    /// blocks left then are counted as not stored. Results count as not handed to the
    /// delegate only when a delegate or a result stream was there to take them.
    /// - Returns: The results that reached no sink (`results`) and those the delegate never saw.
    func drainAtExit(before deadline: ContinuousClock.Instant) -> (results: Int, undelivered: Int) {
        let thread = DeliveryBlock.currentThread()
        let queue = delegateQueue
        let blocked = (queue === DispatchQueue.main && Thread.isMainThread) || outstanding.withLock { $0.isRunning(on: thread) }
        if !blocked {
            let waitEnd = ContinuousClock.now + (deadline - ContinuousClock.now) / 2  // the rest to take over
            while !outstanding.withLock({ $0.blocks.isEmpty }) && ContinuousClock.now < waitEnd {
                usleep(1000)
            }
        }
        var results = 0
        var undelivered = 0
        let blocks = outstanding.withLock { $0.blocks.sorted { $0.key < $1.key }.map(\.value) }
        for block in blocks {
            if block.claim() {
                let (stored, total): (Int, Int)
                if ContinuousClock.now < deadline {
                    (stored, total) = deliverToSinkOnly(block.parts)
                } else {
                    // Past the deadline: counted, not stored (nothing missed without a sink).
                    total = Self.resultCount(of: block.parts)
                    stored = outbox == nil ? total : 0
                }
                results += total - stored
                undelivered += block.hasReceivers ? total : 0
            } else {
                // Still being delivered (on this thread, below the exit, or stuck elsewhere).
                let rest = max(0, Self.resultCount(of: block.parts) - block.deliveredCount)
                results += outbox == nil ? 0 : rest
                undelivered += block.hasReceivers ? rest : 0
            }
        }
        return (results, undelivered)
    }

    /// Appends the results of `parts` to the sink (errors go to the logger).
    /// - Returns: How many results the sink took, of how many.
    private func deliverToSinkOnly(_ parts: [Part]) -> (stored: Int, total: Int) {
        var stored = 0
        var total = 0
        func send(_ result: AnalyticsResult) {
            total += 1
            guard let outbox else {
                stored += 1  // no sink: only the delegate misses it
                return
            }
            do {
                try outbox.append(result, time: Manager.now())
                stored += 1
            } catch {
                logger.error("\(error)")
            }
        }
        for part in parts {
            switch part {
            case let .result(result): send(result)
            case let .pending(pending):
                do { try pending.forEachResult { _, result in send(result) } } catch { logger.error("\(error)") }
            case let .error(error): logger.log(level: Self.logLevel(of: error), "\(error)")
            }
        }
        return (stored, total)
    }

    /// How many results `parts` hold.
    private static func resultCount(of parts: [Part]) -> Int {
        var count = 0
        for part in parts {
            switch part {
            case .result: count += 1
            case let .pending(pending):
                do { try pending.forEachResult { _, _ in count += 1 } } catch {
                    // Counted up to the fault, which its delivery reports.
                }
            case .error: break
            }
        }
        return count
    }
}

extension ResultDelivery {
    private struct WeakDelegate: @unchecked Sendable {
        weak var value: (any ManagerDelegate)?
    }

    private struct Observers: Sendable {
        var delegate = WeakDelegate(value: nil)
        /// Whether the delegate was set to an object, which may since have been released.
        var delegateWasSet = false
        var releaseReported = false
        var delegateQueue = DispatchQueue(label: "anna.manager.delegate")
        var resultContinuations: [Int: AsyncStream<AnalyticsResult>.Continuation] = [:]
        var errorContinuations: [Int: AsyncStream<any Error>.Continuation] = [:]
        var nextToken = 0

        /// Keeps `continuation` under a new token, returned.
        mutating func add<Element>(
            _ continuation: AsyncStream<Element>.Continuation,
            to continuations: WritableKeyPath<Self, [Int: AsyncStream<Element>.Continuation]>
        ) -> Int {
            nextToken += 1
            self[keyPath: continuations][nextToken] = continuation
            return nextToken
        }
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
