import Foundation

/// Order statistics over the samples of a measurement, for both benchmarks.
package enum Stats {
    /// The median (the mean of the two middle values for an even count); 0 for no samples.
    package static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The `fraction` percentile of `sorted` (ascending) by nearest rank: the smallest value
    /// with at least `fraction` of the samples at or below it; 0 for no samples.
    ///
    /// ```swift
    /// Stats.percentile(0.99, of: latencies.sorted())
    /// ```
    package static func percentile(_ fraction: Double, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// `value` rounded to `places` decimal places, as the benchmarks print figures.
    package static func rounded(_ value: Double, _ places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}
