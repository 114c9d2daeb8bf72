/// What an ``AnalyticsEngine`` produces, in order: a result, or the results of a batch in
/// which nothing failed, still as the JSON text JavaScript wrote (decoded by whoever takes
/// them, on whatever thread suits them).
enum EngineOutput {
    /// One result (results of a batch in which something failed come one by one, between
    /// its errors).
    case result(AnalyticsResult)
    /// The results of a batch, not yet decoded.
    case results(PendingResults)
}
