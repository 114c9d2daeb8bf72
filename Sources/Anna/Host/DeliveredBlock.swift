/// What one delivery on the delegate queue handed over, as a ``ManagerInspector`` sees it:
/// the block's last results, how many came before them, and its errors.
public struct DeliveredBlock: Sendable {
    /// The block's last results (at most ``ManagerInspector/resultsKeptPerBlock``), oldest first.
    public var results: [AnalyticsResult]
    /// Results of the block delivered before ``results``, counted only.
    public var skippedResults: Int
    /// The block's errors, in order.
    public var errors: [any Error]

    /// A block of `results` (oldest first), after `skippedResults` counted ones, and `errors`.
    public init(results: [AnalyticsResult], skippedResults: Int = 0, errors: [any Error] = []) {
        self.results = results
        self.skippedResults = skippedResults
        self.errors = errors
    }

    /// Whether the block delivered nothing.
    public var isEmpty: Bool { results.isEmpty && skippedResults == 0 && errors.isEmpty }
}

/// Collects a ``DeliveredBlock`` while the block is delivered: a ring of the last `limit`
/// results. A result is kept after every other observer has seen it, so it is moved in, not
/// copied; the one it replaces is released as it would have been without an inspector.
struct DeliveredBlockCollector {
    private let limit: Int
    private var ring: [AnalyticsResult] = []
    private var count = 0
    private var errors: [any Error] = []

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    mutating func keep(_ result: consuming AnalyticsResult) {
        defer { count += 1 }
        guard limit > 0 else { return }
        if ring.isEmpty { ring.reserveCapacity(limit) }  // one allocation per block, not one per doubling
        if ring.count < limit {
            ring.append(result)
        } else {
            ring[count % limit] = result
        }
    }

    mutating func keep(_ error: any Error) {
        errors.append(error)
    }

    /// The block collected, its results oldest first.
    consuming func block() -> DeliveredBlock {
        guard count > ring.count else { return DeliveredBlock(results: ring, errors: errors) }
        guard !ring.isEmpty else { return DeliveredBlock(results: [], skippedResults: count, errors: errors) }
        // The oldest kept result is at `count % ring.count`: rotate it to the front in place.
        let start = count % ring.count
        if start > 0 {
            ring.withUnsafeMutableBufferPointer { ring in
                Self.reverse(ring, start: 0, end: start)
                Self.reverse(ring, start: start, end: ring.count)
                Self.reverse(ring, start: 0, end: ring.count)
            }
        }
        return DeliveredBlock(results: ring, skippedResults: count - ring.count, errors: errors)
    }

    /// Reverses `ring[start..<end]` in place. A buffer's `swapAt` moves the two elements; the
    /// array's, or a slice's `reverse()`, would copy them, retaining each.
    private static func reverse(_ ring: UnsafeMutableBufferPointer<AnalyticsResult>, start: Int, end: Int) {
        var low = start
        var high = end - 1
        while low < high {
            ring.swapAt(low, high)
            low += 1
            high -= 1
        }
    }
}
