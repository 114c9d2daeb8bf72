import CoreJS

/// The results of one batch as the JSON text JavaScript wrote, not yet decoded: the
/// ``Manager`` decodes them on the delegate queue, off the script queue.
struct PendingResults: Sendable {
    /// `[operation, metaID, value, …]` as UTF-8.
    let text: [UInt8]
    /// The meta table as it was when the batch ran (IDs in the text index it).
    let metas: [ResultMeta]
    /// The time of each operation of the batch, by offset (NaN: none given): each result
    /// carries the time of the operation that produced it.
    var times: [Double] = []

    /// Decodes the results and hands each to `body` with its operation's offset, in order.
    /// - Throws: ``AnalyticsError/operationFailed(operation:_:)`` when the text does not
    ///   parse (the results after the fault are lost, and the caller reports it).
    /// With `keepingText`, each result keeps its value's text as JavaScript wrote it
    /// (``AnalyticsResult/jsonText``), for a listener that stores text.
    func forEachResult(
        keepingText: Bool = false, _ body: (_ offset: Int, _ result: consuming AnalyticsResult) -> Void
    ) throws(AnalyticsError) {
        var position = 0
        var operation = 0
        var metaID = -1
        do {
            try text.withUnsafeBufferPointer { bytes in
                try JSONValue.forEachElementText(ofArrayUTF8: bytes) { element, elementText in
                    defer { position += 1 }
                    switch position % 3 {
                    case 0: operation = Int(element.numberValue ?? 0)
                    case 1: metaID = Int(element.numberValue ?? -1)
                    default:
                        let meta = metaID >= 0 && metaID < metas.count ? metas[metaID] : nil
                        let time = operation >= 0 && operation < times.count && !times[operation].isNaN ? times[operation] : nil
                        let text = keepingText ? elementText.map { String(decoding: $0, as: UTF8.self) } : nil
                        // The value moved in explicitly: left to itself, the optimizer copied it
                        // and destroyed the original, once per result.
                        let result = AnalyticsResult(value: consume element, text: text, meta: meta, time: time)
                        body(operation, consume result)
                    }
                }
            }
        } catch {
            throw AnalyticsError.operationFailed(
                operation: "reading a batch of results after \(position / 3) of them", .typeMismatch("\(error)"))
        }
    }
}
