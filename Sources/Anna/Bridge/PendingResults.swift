import CoreJS

/// The results of one batch as the JSON text JavaScript wrote, not yet decoded: the
/// ``Manager`` decodes them on the delegate queue, off the script queue.
struct PendingResults: Sendable {
    /// `[value, …]` as UTF-8.
    let text: [UInt8]
    /// For each value, in order: the offset in the batch of the operation that produced it,
    /// and its meta ID (-1: none), as JavaScript left them in a `Float64Array`.
    let index: [Double]
    /// The meta table as it was when the batch ran (IDs in ``index`` index it).
    let metas: [ResultMeta]
    /// The time of each operation of the batch, by offset (NaN: none given): each result
    /// carries the time of the operation that produced it.
    var times: [Double] = []

    /// The operation offset and meta ID of value `position`; `nil` past the index's end or
    /// where it holds no integers.
    func origin(of position: Int) -> (operation: Int, metaID: Int)? {
        guard 2 * position + 1 < index.count, let operation = Int(exactly: index[2 * position]),
            let metaID = Int(exactly: index[2 * position + 1])
        else { return nil }
        return (operation, metaID)
    }

    /// The meta of `metaID` (`nil` for -1 or an ID the table lacks).
    func meta(_ metaID: Int) -> ResultMeta? {
        metaID >= 0 && metaID < metas.count ? metas[metaID] : nil
    }

    /// The time of operation `operation` (`nil` when none was given).
    func time(of operation: Int) -> Double? {
        operation >= 0 && operation < times.count && !times[operation].isNaN ? times[operation] : nil
    }

    /// Decodes the results and hands each to `body` with its operation's offset, in order.
    /// - Throws: ``AnalyticsError/operationFailed(operation:_:)`` when the text does not
    ///   parse, or a value has no entry in the index (the results after the fault are lost,
    ///   and the caller reports it).
    /// With `keepingText`, each result keeps its value's text as JavaScript wrote it
    /// (``AnalyticsResult/jsonText``), for a listener that stores text.
    func forEachResult(
        keepingText: Bool = false, _ body: (_ offset: Int, _ result: consuming AnalyticsResult) -> Void
    ) throws(AnalyticsError) {
        var position = 0
        do {
            try text.withUnsafeBufferPointer { bytes in
                try JSONValue.forEachElementText(ofArrayUTF8: bytes) { element, elementText in
                    guard let (operation, metaID) = origin(of: position) else { throw Self.missingOrigin(of: position, in: self) }
                    position += 1
                    let text = keepingText ? elementText.map { String(decoding: $0, as: UTF8.self) } : nil
                    // The value moved in explicitly: left to itself, the optimizer copied it
                    // and destroyed the original, once per result.
                    let result = AnalyticsResult(value: consume element, text: text, meta: meta(metaID), time: time(of: operation))
                    body(operation, consume result)
                }
            }
        } catch {
            throw AnalyticsError.operationFailed(
                operation: "reading a batch of results after \(position) of them", .typeMismatch("\(error)"))
        }
    }

    /// The error for value `position` without a readable entry in the index.
    static func missingOrigin(of position: Int, in results: PendingResults) -> JavaScriptError {
        .typeMismatch("value \(position + 1) has no entry in the results' index (\(results.index.count / 2) entries)")
    }
}
