import CoreJS

/// The results of one batch as the JSON text JavaScript wrote, not yet decoded: the
/// ``Manager`` decodes them on the delegate queue, off the script queue.
struct PendingResults: Sendable {
    /// `[operation, metaID, value, …]` as UTF-8.
    let text: [UInt8]
    /// Values JSON could not carry, already converted; the text marks them by index.
    let slowValues: [JSONValue]
    /// The meta table as it was when the batch ran (IDs in the text index it).
    let metas: [ResultMeta]

    static let slowMarker = "\u{0}anna-slow"

    /// Decodes the results and hands each to `body` with its operation's offset, in order.
    func forEach(_ body: (_ offset: Int, _ result: AnalyticsResult) -> Void) {
        var position = 0
        var operation = 0
        var metaID = -1
        try? text.withUnsafeBufferPointer { bytes in
            try JSONValue.forEachElement(ofArrayUTF8: bytes) { element in
                defer { position += 1 }
                switch position % 3 {
                case 0: operation = Int(element.numberValue ?? 0)
                case 1: metaID = Int(element.numberValue ?? -1)
                default:
                    var value = element
                    if case let .object(members) = element, members.count == 1,
                        let index = members[Self.slowMarker]?.numberValue, Int(index) < slowValues.count
                    {
                        value = slowValues[Int(index)]
                    }
                    let meta = metaID >= 0 && metaID < metas.count ? metas[metaID] : nil
                    body(operation, AnalyticsResult(value: value, meta: meta))
                }
            }
        }
    }
}
