import CoreJS

/// How one trace fared against the results of a run.
struct TraceCheck {
    /// What became of one expected item.
    enum Outcome {
        /// Found (in order, when order is enforced).
        case matched(position: Int)
        /// Never produced (or produced fewer times than listed).
        case missing
        /// Produced, but before an item listed earlier.
        case outOfOrder(position: Int)

        /// Whether the item was found where it belongs.
        var isMatched: Bool {
            if case .matched = self { return true }
            return false
        }
    }

    let trace: Trace
    /// The outcome of each item, in the trace's order.
    let outcomes: [(item: Trace.Item, outcome: Outcome)]
    /// Items produced more often than listed (when duplicates are not allowed), with the count.
    let duplicates: [(item: Trace.Item, count: Int)]

    var passed: Bool {
        duplicates.isEmpty && outcomes.allSatisfy(\.outcome.isMatched)
    }

    /// Checks `trace` against `results`.
    ///
    /// Each item takes the first unused result it matches (``Trace/matches(_:_:)``) after the previous item's (with
    /// `enforceOrder`), or anywhere (without). An item found only before that point is out
    /// of order; one not found at all is missing. Without `allowDuplicates`, an item
    /// produced more times than it is listed is duplicated.
    init(trace: Trace, results: [JSONValue]) {
        self.trace = trace
        var used = Set<Int>()
        var cursor = -1
        var outcomes: [(Trace.Item, Outcome)] = []
        for item in trace.items {
            let positions = results.indices.filter { !used.contains($0) && trace.matches(item.value, results[$0]) }
            if let next = positions.first(where: { !trace.enforceOrder || $0 > cursor }) {
                used.insert(next)
                cursor = max(cursor, next)
                outcomes.append((item, .matched(position: next)))
            } else if let early = positions.first {
                used.insert(early)
                outcomes.append((item, .outOfOrder(position: early)))
            } else {
                outcomes.append((item, .missing))
            }
        }
        self.outcomes = outcomes
        var duplicates: [(Trace.Item, Int)] = []
        if !trace.allowDuplicates {
            var seen: [JSONValue] = []
            for item in trace.items where !seen.contains(item.value) {
                seen.append(item.value)
                let listed = trace.items.filter { $0.value == item.value }.count
                let produced = results.filter { trace.matches(item.value, $0) }.count
                if produced > listed { duplicates.append((item, produced)) }
            }
        }
        self.duplicates = duplicates
    }
}
