/// One kind of listener of what a ``Manager`` delivers: its delegate, the ``Manager/results()``
/// and ``Manager/errors()`` streams, its sink (``Manager/Dependency/outbox``), its inspector.
///
/// ``ResultDelivery`` hands every block of results and errors to each listener in turn, as
/// swift-log's `MultiplexLogHandler` hands a message to each handler; the manager's logger
/// takes the errors no listener handles. A new kind of listener is one type conforming to
/// this protocol and one line in ``ResultDelivery/init(logger:outbox:inspector:)``.
protocol DeliveryListener: Sendable {
    /// Whether the listener stores results durably (a sink): it takes each result before
    /// the others, so its refusal reaches them first, and the drain at exit hands it the
    /// results the delegate queue cannot deliver any more.
    var storesResults: Bool { get }

    /// What the listener does with one block, or `nil` when it takes no part in it (no
    /// delegate set, no stream open). Called once per block, on the script queue, as the
    /// block is handed to the delegate queue (so it reads its own state under its lock once
    /// per block, never per result).
    func receiver(for manager: Manager) -> (any DeliveryReceiver)?
}

/// What one listener does with one block, on the delegate queue: each result and error in
/// order, then ``finish()``.
protocol DeliveryReceiver: Sendable {
    /// Whether it takes results (a delegate, a result stream): the drain at exit counts the
    /// results it could not hand it.
    var takesResults: Bool { get }
    /// Whether it handles errors (a delegate, an error stream); when no receiver of a block
    /// does, the manager's logger logs them.
    var handlesErrors: Bool { get }
    /// Whether it stores results as JSON text: results then keep the engine's text
    /// (``AnalyticsResult/jsonText`` without a second encoding).
    var storesText: Bool { get }
    /// Takes one result (the last receiver gets it moved in, the others a copy).
    /// - Throws: when it refuses the result; the error is reported to every receiver like
    ///   any other, before the receivers after this one see the result.
    mutating func receive(_ result: consuming AnalyticsResult) throws
    /// Takes one result that is not the block's last use of it: a receiver that does not
    /// keep it (a sink that encodes it, a delegate it is handed to) reads it in place; the
    /// others get a copy (the default).
    mutating func receive(borrowing result: borrowing AnalyticsResult) throws
    /// Takes one error.
    mutating func receive(_ error: any Error)
    /// The block is delivered.
    mutating func finish()
}

extension DeliveryReceiver {
    var takesResults: Bool { false }
    var handlesErrors: Bool { false }
    var storesText: Bool { false }
    mutating func receive(borrowing result: borrowing AnalyticsResult) throws { try receive(copy result) }
    mutating func receive(_ error: any Error) {}
    mutating func finish() {}
}
