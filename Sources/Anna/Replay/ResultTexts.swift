import CoreJS

/// Results as JSON text, each exactly as ``JSONValue/jsonText`` writes its value: what a
/// replay prints, passed on from the text JavaScript wrote without decoding it.
///
/// ``EngineOutput/forEachText(_:error:)`` hands them
/// over a batch at a time, or one at a time between the errors of a batch in which
/// something failed.
///
/// ```swift
/// texts.forEachResult { json, meta, _ in output.append(json); output.append(newline) }
/// ```
package struct ResultTexts: Sendable {
    private enum Storage: Sendable {
        case batch(text: [UInt8], elements: [ResultTextScanner.Element], metas: [ResultMeta], times: [Double])
        case single(AnalyticsResult)
    }

    private let storage: Storage

    /// The results of a batch, when their text can be passed on as it is.
    init?(scanning results: PendingResults) {
        guard let elements = results.text.withUnsafeBytes({ ResultTextScanner.scan($0) }) else { return nil }
        storage = .batch(text: results.text, elements: elements, metas: results.metas, times: results.times)
    }

    /// One decoded result.
    init(_ result: AnalyticsResult) {
        storage = .single(result)
    }

    /// How many results there are.
    package var count: Int {
        switch storage {
        case let .batch(_, elements, _, _): return elements.count
        case .single: return 1
        }
    }

    /// Calls `body` with each result's value as JSON text (UTF-8, valid only during the
    /// call), its meta and its time (``AnalyticsResult/time``), in order.
    package func forEachResult(_ body: (_ json: UnsafeRawBufferPointer, _ meta: ResultMeta?, _ time: Double?) -> Void) {
        switch storage {
        case let .batch(text, elements, metas, times):
            text.withUnsafeBytes { bytes in
                for element in elements {
                    let meta = element.metaID >= 0 && element.metaID < metas.count ? metas[element.metaID] : nil
                    let time = element.operation >= 0 && element.operation < times.count ? times[element.operation] : .nan
                    body(UnsafeRawBufferPointer(rebasing: bytes[element.value]), meta, time.isNaN ? nil : time)
                }
            }
        case let .single(result):
            var json = result.value.jsonText
            json.withUTF8 { body(UnsafeRawBufferPointer($0), result.meta, result.time) }
        }
    }
}
