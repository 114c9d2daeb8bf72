import CoreJS

// What a debugging tool (an inspector) reads and switches on a running manager.
extension Manager {
    /// Pauses the script queue: operations sent meanwhile are kept in order, none runs (nor
    /// does ``snapshot(format:)``, ``coverage()`` or ``flush()``) until ``resume()``.
    ///
    /// A paused manager holds at most 100,000 operations: later ones are dropped, which the
    /// manager's logger says at once (once per pause), and ``resume()`` reports with their
    /// count (``AnalyticsError/pausedOverflow(kept:dropped:)``, after the held ones). A
    /// process that exits while paused is still drained (see ``Manager``).
    public func pause() {
        script.setPaused(true, for: self)
    }

    /// Resumes the script queue after ``pause()``: what was kept runs in order.
    public func resume() {
        script.setPaused(false, for: self)
    }

    /// Whether ``pause()`` holds the script queue.
    public var isPaused: Bool { script.isPaused }

    /// Events recorded on the manager's nodes since it was made (counted as they are queued).
    public var eventCount: Int { script.queuedEventTotal }

    /// Operations (registrations, events, removals) queued, not yet taken by the script queue.
    public var queuedOperationCount: Int { script.queuedCount }

    /// Calls `body` on the delegate queue once every operation sent before has been handled
    /// and its results handed to the delegate queue (``flush()`` without waiting).
    @available(*, deprecated, message: "use the async flush()")
    public func flush(then body: @escaping @Sendable () -> Void) {
        flush(thenOnDelegateQueue: body)
    }

    /// Calls `body` on the delegate queue once every operation sent before has been handled
    /// and its results handed to the delegate queue: ``flush()`` without a task, for the
    /// inspector's latency probe, which must not wait.
    package func flush(thenOnDelegateQueue body: @escaping @Sendable () -> Void) {
        enqueue(.barrier(body))
    }

    /// Switches a task file's tasks off or back on (see ``AnalyticsEngine/setTaskFile(_:enabled:)``),
    /// after the operations sent before.
    /// - Returns: How many loaded tasks the file has.
    @discardableResult
    public func setTaskFile(_ file: String, enabled: Bool) async throws -> Int {
        try await onEngine { try $0.setTaskFile(file, enabled: enabled) }
    }

    /// The task files switched off by ``setTaskFile(_:enabled:)``.
    public func disabledTaskFiles() async throws -> [String] {
        try await onEngine { try $0.disabledTaskFiles() }
    }

    /// Turns the core's debug mode (task files re-required on every load) on or off.
    public func setDebug(_ debug: Bool) async throws {
        try await onEngine { try $0.setDebug(debug) }
    }

    /// Runs every task file again now; a file that fails is reported like any error (to the
    /// delegate, ``errors()``).
    /// - Returns: The files tried.
    @discardableResult
    public func reloadTaskFiles() async throws -> [String] {
        try await onEngine { engine in try engine.reloadTaskFiles { self.report($0) } }
    }

    /// The bytes the JavaScript heap holds (`nil` where the library cannot tell).
    public func heapBytes() async throws -> Int? {
        try await onEngine { $0.heapBytes }
    }

    /// `body`'s value, run on the script queue with the engine after the work sent before.
    private func onEngine<Value: Sendable>(_ body: @escaping @Sendable (AnalyticsEngine) throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            run({ engine in continuation.resume(returning: try body(engine)) }, onFailure: { continuation.resume(throwing: $0) })
        }
    }
}
