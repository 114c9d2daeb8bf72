import CoreJS
import Foundation

/// Seconds as the outbox takes them from callers, collectors and the command line: any
/// `Double` (NaN, negative, infinite, `1e300`) becomes a number every clock can hold.
enum Seconds {
    /// The longest wait the outbox ever schedules: about 31 years, "no limit" in practice.
    static let maximum = 1e9

    /// `seconds` in 0...``maximum``: NaN and negatives are 0, larger values (∞ included) the maximum.
    static func clamped(_ seconds: Double) -> Double {
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, 0), maximum)
    }

    /// `seconds` (clamped) as a `Duration`.
    static func duration(_ seconds: Double) -> Duration {
        .nanoseconds(Int64(clamped(seconds) * 1e9))
    }

    /// An instant `seconds` (clamped) after `start`.
    static func after(_ seconds: Double, from start: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        start + duration(seconds)
    }

    /// `duration` in seconds.
    static func of(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `seconds` for a message: "2", "0.5", "3600".
    static func text(_ seconds: Double) -> String {
        let value = clamped(seconds)
        return value == value.rounded() ? String(Int64(value)) : String(format: "%.3g", value)
    }
}
