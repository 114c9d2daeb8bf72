import CoreJS

extension AnalyticsEngine {
    /// Applies the operations of `batch` like `apply(_:)` (of an array of operations) (error positions are
    /// indices of the batch), then empties it for the next lines. Operations read without a
    /// `time` run at ``time`` (or the wall clock).
    /// - Returns: Their results and errors, in order (``EngineOutput/forEachText(_:error:)``
    ///   passes the results' text on without decoding it).
    package func apply(_ batch: inout EventStreamBatch) -> EngineOutput {
        var output = EngineOutput()
        guard batch.count > 0 else { return output }
        if let time { batch.encoder.fillMissingTimes(with: time) }
        batch.table.add(batch.encoder.batch)
        applyEncoded(batch, into: &output)
        batch.encoder.beginBatch()
        return output
    }

    /// Sends the encoded operations (read back only for an error's message).
    private func applyEncoded(_ batch: EventStreamBatch, into output: inout EngineOutput) {
        apply(
            batch.encoder.batch, 0..<batch.count, strings: batch.table, operation: { batch.operation(at: $0).operation },
            into: &output)
    }
}
