import CoreJS
import Foundation
import Synchronization

/// One block of results and errors handed to the delegate queue, which the drain at exit
/// may take over before the queue starts it (``ResultDelivery/drainAtExit(before:)``).
final class DeliveryBlock: Sendable {
    private enum State {
        case waiting
        case running(thread: UInt)
        case finished
        case claimed
    }

    /// The results (possibly undecoded) and errors, in order.
    let parts: [ResultDelivery.Part]
    /// Whether a delegate or a result stream was there to take the results when the block was
    /// made (without one, only the sink misses them if the drain at exit cannot store them).
    let hasReceivers: Bool
    private let state = Locked(State.waiting)
    private let delivered = Atomic<Int>(0)

    init(parts: [ResultDelivery.Part], hasReceivers: Bool) {
        self.parts = parts
        self.hasReceivers = hasReceivers
    }

    /// The calling thread's identity.
    static func currentThread() -> UInt {
        #if canImport(Glibc)
            UInt(pthread_self())
        #else
            UInt(bitPattern: pthread_self())
        #endif
    }

    /// Marks the block started on the calling thread; `false` when the drain at exit took it.
    func begin() -> Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            state = .running(thread: Self.currentThread())
            return true
        }
    }

    /// Marks the block delivered.
    func end() {
        state.withLock { $0 = .finished }
    }

    /// Takes the block for the drain at exit; `false` when the delegate queue started it.
    func claim() -> Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            state = .claimed
            return true
        }
    }

    /// The thread delivering the block, while it does.
    var runningThread: UInt? {
        state.withLock { state in
            if case let .running(thread) = state { return thread }
            return nil
        }
    }

    /// Whether the block is being delivered on a thread other than `thread`.
    func isRunning(elsewhereThan thread: UInt) -> Bool {
        guard let running = runningThread else { return false }
        return running != thread
    }

    /// Counts one result handed on.
    func countDelivered() {
        delivered.add(1, ordering: .relaxed)
    }

    /// The results handed on so far.
    var deliveredCount: Int { delivered.load(ordering: .relaxed) }
}
