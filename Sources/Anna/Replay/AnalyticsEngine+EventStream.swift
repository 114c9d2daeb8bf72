import CoreJS

extension AnalyticsEngine {
    /// Applies the operations of `batch` like ``apply(_:onError:)`` (error positions are
    /// indices of the batch), then empties it for the next lines. Operations read without a
    /// `time` run at ``time`` (or the wall clock).
    public func apply(_ batch: inout EventStreamBatch, onError: (Int, AnalyticsError) -> Void) {
        guard batch.count > 0 else { return }
        if let time { batch.encoder.fillMissingTimes(with: time) }
        batch.table.add(batch.encoder.batch)
        applyEncoded(batch, onError: onError)
        batch.encoder.beginBatch()
    }

    /// Sends the encoded operations (read back only for an error's message).
    private func applyEncoded(_ batch: EventStreamBatch, onError: (Int, AnalyticsError) -> Void) {
        apply(
            batch.encoder.batch, 0..<batch.count, strings: batch.table, operation: { batch.operation(at: $0).operation },
            onError: onError)
    }
}

extension AnalyticsEngine {
    /// Loads the module and constructs its manager, like ``init(configuration:onResult:)``,
    /// but hands results on as JSON text (``ResultTexts``): a batch's text as JavaScript
    /// wrote it when it is exactly what decoding and writing it back would give, else each
    /// result decoded and written. For tools that print results (`anna run`).
    /// - Parameter onResultTexts: called synchronously, on the calling thread, in order.
    /// - Throws: as ``init(configuration:onResult:)``.
    public convenience init(configuration: Configuration, onResultTexts: @escaping (ResultTexts) -> Void) throws {
        try self.init(
            configuration: configuration,
            deliveringTo: { output in
                if case let .result(result) = output { onResultTexts(ResultTexts(result)) }
            },
            texts: onResultTexts)
    }
}
