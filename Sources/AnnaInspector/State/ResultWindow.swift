import Anna
import DequeModule

/// The last results the inspector keeps, stored as the batches they arrived in: a delivered
/// block is one append however many results it holds, and whole batches are dropped once
/// the newer ones hold the limit. Results are numbered from 1 in the order they arrived.
struct ResultWindow: Sendable {
    private struct Batch: Sendable {
        /// The number of the batch's first result.
        var firstSequence: Int
        var time: Double
        var line: Int?
        var results: [AnalyticsResult]
    }

    /// The most results a read gives (more may be held until a batch is dropped whole).
    let limit: Int
    private var batches = Deque<Batch>()
    /// Results held in ``batches``.
    private var held = 0
    /// Every result seen, kept or only counted: the newest one's number.
    private(set) var count = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Counts `skipped` results, then keeps `results` (oldest first), arrived at `time`.
    mutating func append(_ results: [AnalyticsResult], skipped: Int = 0, time: Double, line: Int? = nil) {
        count += skipped
        guard !results.isEmpty else { return }
        batches.append(Batch(firstSequence: count + 1, time: time, line: line, results: results))
        count += results.count
        held += results.count
        while let first = batches.first, held - first.results.count >= limit {
            held -= first.results.count
            batches.removeFirst()
        }
    }

    /// The kept results numbered above `cursor`, oldest first, at most the newest `limit`.
    func after(_ cursor: Int, limit: Int? = nil) -> [InspectedResult] {
        let wanted = min(limit ?? self.limit, self.limit, max(0, count - cursor))
        var newestFirst: [InspectedResult] = []
        newestFirst.reserveCapacity(wanted)
        for batch in batches.reversed() where newestFirst.count < wanted {
            for (offset, result) in batch.results.enumerated().reversed() {
                let sequence = batch.firstSequence + offset
                guard sequence > cursor, newestFirst.count < wanted else { break }
                newestFirst.append(InspectedResult(sequence: sequence, time: batch.time, result: result, line: batch.line))
            }
        }
        return newestFirst.reversed()
    }
}
