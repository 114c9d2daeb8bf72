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
        case batch(PendingResults, values: [Range<Int>])
        case single(AnalyticsResult)
    }

    private let storage: Storage

    /// The results of a batch, when their text can be passed on as it is and each value has
    /// its entry in the index (else decoding reports what is wrong).
    init?(scanning results: PendingResults) {
        guard let values = results.text.withUnsafeBytes({ ResultTextScanner.scan($0) }),
            values.indices.allSatisfy({ results.origin(of: $0) != nil })
        else { return nil }
        storage = .batch(results, values: values)
    }

    /// One decoded result.
    init(_ result: AnalyticsResult) {
        storage = .single(result)
    }

    /// How many results there are.
    package var count: Int {
        switch storage {
        case let .batch(_, values): return values.count
        case .single: return 1
        }
    }

    /// Calls `body` with each result's value as JSON text (UTF-8, valid only during the
    /// call), its meta and its time (``AnalyticsResult/time``), in order.
    package func forEachResult(_ body: (_ json: UnsafeRawBufferPointer, _ meta: ResultMeta?, _ time: Double?) -> Void) {
        switch storage {
        case let .batch(results, values):
            results.text.withUnsafeBytes { bytes in
                for (position, value) in values.enumerated() {
                    let origin = results.origin(of: position)  // scanning checked that there is one
                    body(
                        UnsafeRawBufferPointer(rebasing: bytes[value]), origin.flatMap { results.meta($0.metaID) },
                        origin.flatMap { results.time(of: $0.operation) })
                }
            }
        case let .single(result):
            var json = result.value.jsonText
            json.withUTF8 { body(UnsafeRawBufferPointer($0), result.meta, result.time) }
        }
    }
}
