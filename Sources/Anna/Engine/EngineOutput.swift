import CoreJS

/// What an ``AnalyticsEngine`` produced for the operations of one call, in order: their
/// results and their errors, each error after the results of the operations before it.
///
/// The results stay the JSON text JavaScript wrote until they are read, so whoever reads
/// them decodes them, on whatever thread suits it (a ``Manager`` decodes on its delegate
/// queue, while its script queue runs the next operations).
///
/// ```swift
/// let output = engine.apply(operations)
/// output.forEach { result in print(result.value.jsonText) } error: { position, error in print(position, error) }
/// ```
public struct EngineOutput: Sendable {
    /// The output of one batch sent to JavaScript, or an error of its own.
    enum Part: Sendable {
        /// The results of a batch in which nothing failed; a failure to read them is
        /// reported at `last` (the position of the batch's last operation).
        case results(PendingResults, last: Int)
        /// The results of a batch in which something failed, between its errors.
        case mixed(MixedResults)
        /// An error outside a batch's results (the batch could not be sent, a task file did
        /// not reload), at an operation's position.
        case error(position: Int, AnalyticsError)
    }

    /// The parts, in order.
    private(set) var parts: [Part] = []

    /// An empty output.
    public init() {}

    /// Whether nothing was produced.
    public var isEmpty: Bool { parts.isEmpty }

    mutating func append(_ part: Part) {
        parts.append(part)
    }

    mutating func append(_ error: AnalyticsError, at position: Int) {
        parts.append(.error(position: position, error))
    }

    /// Empties the output, keeping its storage for the next call.
    mutating func removeAll() {
        parts.removeAll(keepingCapacity: true)
    }

    /// Decodes the results and hands them and the errors (with their operations'
    /// positions) to `result` and `error`, in the order they happened.
    public func forEach(result: (AnalyticsResult) -> Void, error: (_ position: Int, _ error: AnalyticsError) -> Void) {
        for part in parts { part.forEach(result: result, error: error) }
    }

    /// The results, decoded (a result text that cannot be read is among ``errors``).
    public var results: [AnalyticsResult] {
        var results: [AnalyticsResult] = []
        forEach(result: { results.append($0) }, error: { _, _ in })
        return results
    }

    /// The errors, in order, with the positions of their operations.
    public var errors: [(position: Int, error: AnalyticsError)] {
        var errors: [(position: Int, error: AnalyticsError)] = []
        forEach(result: { _ in }, error: { errors.append(($0, $1)) })
        return errors
    }

    /// Hands the results on as JSON text (``ResultTexts``): a batch's text as JavaScript
    /// wrote it when it is exactly what decoding and writing it back would give, else each
    /// result decoded and written; errors go to `error`. All in order. The replay fast path
    /// (`anna run`), which prints results without decoding them.
    package func forEachText(_ body: (ResultTexts) -> Void, error: (_ position: Int, _ error: AnalyticsError) -> Void) {
        for part in parts {
            if case let .results(pending, _) = part, let texts = ResultTexts(scanning: pending) {
                body(texts)
            } else {
                part.forEach(result: { body(ResultTexts($0)) }, error: error)
            }
        }
    }
}

extension EngineOutput.Part {
    /// Decodes the part's results and hands them and its errors on, in order; with
    /// `keepingText`, each result keeps its text (``AnalyticsResult/jsonText``).
    func forEach(
        keepingText: Bool = false, result: (consuming AnalyticsResult) -> Void, error: (_ position: Int, _ error: AnalyticsError) -> Void
    ) {
        switch self {
        case let .results(pending, last):
            do { try pending.forEachResult(keepingText: keepingText) { _, decoded in result(decoded) } } catch let failure {
                error(last, failure)
            }
        case let .mixed(mixed): mixed.forEach(keepingText: keepingText, result: result, error: error)
        case let .error(position, failure): error(position, failure)
        }
    }

    /// How many results the part holds (counted up to a text that cannot be read).
    var resultCount: Int {
        var count = 0
        forEach(result: { _ in count += 1 }, error: { _, _ in })
        return count
    }
}

/// The results of a batch in which an operation failed, with its errors: the results of the
/// operations before offset ``through``, each error after the results of the operations
/// before its own.
struct MixedResults: Sendable {
    let results: PendingResults
    /// The errors by offset in the batch, in order, with their operations' positions.
    let errors: [(offset: Int, position: Int, error: AnalyticsError)]
    /// The operations from this offset on run again in the next batch: their results here
    /// are dropped.
    let through: Int
    /// Why the results could not be read back at all (they are lost with it).
    let readFailure: AnalyticsError?
    /// The position of the last operation before ``through`` (`nil` when none ran: no result
    /// was lost).
    let last: Int?

    func forEach(
        keepingText: Bool = false, result: (consuming AnalyticsResult) -> Void, error: (_ position: Int, _ error: AnalyticsError) -> Void
    ) {
        var next = 0
        var decodeFailure: AnalyticsError?
        do {
            try results.forEachResult(keepingText: keepingText) { offset, decoded in
                guard offset < through else { return }
                while next < errors.count, errors[next].offset < offset {
                    error(errors[next].position, errors[next].error)
                    next += 1
                }
                result(decoded)
            }
        } catch {
            decodeFailure = error
        }
        for item in errors[next...] { error(item.position, item.error) }
        guard let last else { return }
        if let readFailure { error(last, readFailure) }
        if let decodeFailure { error(last, decodeFailure) }
    }
}
