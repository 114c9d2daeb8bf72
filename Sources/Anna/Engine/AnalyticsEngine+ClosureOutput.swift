// The closure-taking forms of the engine's calls, kept while their callers move to the
// calls that return what they produce (``EngineOutput``): an engine made with a closure
// hands to it what ``apply(_:onError:)`` and the one-operation calls produce.
extension AnalyticsEngine {
    /// Where an engine made with a closure hands the output of the calls that return none.
    struct ClosureOutput {
        /// Hands `output` on: its results to the engine's closure, its errors to `error`, in order.
        let handOn: (_ output: EngineOutput, _ error: (Int, AnalyticsError) -> Void) -> Void
    }

    /// Loads the module and constructs its manager, like ``init(configuration:)``; the
    /// results of ``apply(_:onError:)`` and of the one-operation calls go to `onResult`.
    /// - Parameter onResult: called synchronously, on the calling thread, for each result.
    /// - Throws: as ``init(configuration:)``.
    public convenience init(configuration: Configuration, onResult: @escaping (AnalyticsResult) -> Void) throws {
        try self.init(configuration: configuration, handingOn: ClosureOutput { $0.forEach(result: onResult, error: $1) })
    }

    /// Applies operations in order, like `apply(_:)` (of an array of operations): results go to the engine's
    /// closure (``init(configuration:onResult:)``) and failures to `onError` (with the
    /// operation's position), in the order they happen.
    public func apply(_ operations: [TimedOperation], onError: (Int, AnalyticsError) -> Void) {
        apply(operations[...], onError: onError)
    }

    /// Applies a slice of operations like the array version does; error positions are
    /// indices of the slice (those of the array it is cut from).
    public func apply(_ operations: ArraySlice<TimedOperation>, onError: (Int, AnalyticsError) -> Void) {
        handOn(apply(operations), onError: onError)
    }

    /// Hands `output` to the engine's closure, its errors to `onError`; an engine made
    /// without one keeps only the errors (its caller asked for no results).
    func handOn(_ output: EngineOutput, onError: (Int, AnalyticsError) -> Void) {
        if let handOn {
            handOn.handOn(output, onError)
        } else {
            output.forEach(result: { _ in }, error: onError)
        }
    }
}
