import CoreJS

/// Counts of events, results and errors over a session, in buckets: by stream line for a
/// recorded stream, else by second. Beyond ``InspectorState/timelineLimit`` buckets, pairs
/// merge (each bucket then spans twice as much), so a long session keeps a bounded timeline.
struct Timeline: Sendable {
    struct Bucket: Sendable {
        /// The first line (or ms since the epoch) the bucket covers.
        var start: Double
        var events = 0
        var results = 0
        var errors = 0
    }

    /// Lines (or milliseconds) per bucket.
    private(set) var width: Double = 1
    private(set) var buckets: [Bucket] = []
    /// Whether buckets count lines (set by the first add with a line).
    private(set) var byLine: Bool?

    mutating func add(time: Double, line: Int?, events: Int = 0, results: Int = 0, errors: Int = 0) {
        if byLine == nil {
            byLine = line != nil
            width = line != nil ? 1 : 1000
        }
        let position = byLine == true ? Double(line ?? 0) : time
        let start = (position / width).rounded(.down) * width
        if let last = buckets.last, last.start == start {
            buckets[buckets.count - 1].events += events
            buckets[buckets.count - 1].results += results
            buckets[buckets.count - 1].errors += errors
        } else if let last = buckets.last, start < last.start {
            // Out of order (an error stamped late): counted in the last bucket.
            buckets[buckets.count - 1].events += events
            buckets[buckets.count - 1].results += results
            buckets[buckets.count - 1].errors += errors
        } else {
            buckets.append(Bucket(start: start, events: events, results: results, errors: errors))
            if buckets.count > InspectorState.timelineLimit { mergePairs() }
        }
    }

    private mutating func mergePairs() {
        width *= 2
        var merged: [Bucket] = []
        for bucket in buckets {
            let start = (bucket.start / width).rounded(.down) * width
            if let last = merged.last, last.start == start {
                merged[merged.count - 1].events += bucket.events
                merged[merged.count - 1].results += bucket.results
                merged[merged.count - 1].errors += bucket.errors
            } else {
                merged.append(Bucket(start: start, events: bucket.events, results: bucket.results, errors: bucket.errors))
            }
        }
        buckets = merged
    }

    var json: JSONValue {
        .fields([
            "unit": .string(byLine == false ? "ms" : "line"), "width": .number(width),
            "buckets": .array(buckets.map { .array([.number($0.start), .int($0.events), .int($0.results), .int($0.errors)]) }),
        ])
    }
}
