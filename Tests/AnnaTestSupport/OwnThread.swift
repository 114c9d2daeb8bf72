import Foundation

/// Runs `work` on a thread of its own and awaits its result.
///
/// Swift's tasks share as many threads as the machine has cores, and Swift Testing runs every
/// suite of the process on them. A test that waits for a child process (`make`, a killed
/// helper) must wait here, or it holds one of those threads and starves the suites whose
/// collectors and deadlines run beside it.
public func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
