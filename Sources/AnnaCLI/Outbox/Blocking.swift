import Dispatch

/// Runs `body` in a detached task and blocks the calling thread until it ends: the commands
/// are synchronous (`anna`'s root command is), the outbox and the collector are async.
func runBlocking<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) throws -> Result {
    let box = ResultBox<Result>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
        done.signal()
    }
    done.wait()
    return try box.get()
}

private final class ResultBox<Value: Sendable>: @unchecked Sendable {
    // Written once by the task before the semaphore is signalled, read after the wait.
    private var result: Result<Value, any Error>?
    func set(_ result: Result<Value, any Error>) { self.result = result }
    func get() throws -> Value {
        guard let result else { fatalError("runBlocking: the task ended without a result") }
        return try result.get()
    }
}
