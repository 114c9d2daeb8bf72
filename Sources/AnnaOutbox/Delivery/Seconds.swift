import CoreJS
import Foundation

/// Delays as the outbox takes them from callers, collectors and the command line: any
/// value (NaN, negative, infinite, `1e300` seconds) becomes one every clock can hold.
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

    /// `delay` in 0...``maximum`` seconds.
    static func clamped(_ delay: Duration) -> Duration {
        duration(clamped(delay.inSeconds))
    }

    /// An instant `delay` (clamped) after `start`.
    static func after(_ delay: Duration, from start: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        start + clamped(delay)
    }

    /// `delay` for a message, in seconds: "2", "0.5", "3600".
    static func text(_ delay: Duration) -> String {
        let value = clamped(delay.inSeconds)
        return value == value.rounded() ? String(Int64(value)) : String(format: "%.3g", value)
    }
}
