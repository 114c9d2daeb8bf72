import ArgumentParser
import CoreJS

/// The checks of the outbox's options that take seconds: a finite number in a range, so no
/// clock overflows and NaN is named for what it is.
enum SecondsOption {
    /// The longest any of them may be: a week.
    static let maximum = 7 * 24 * 3600.0

    /// Throws a usage error (exit 64) unless `value` is a finite number of seconds from
    /// `minimum` (excluded when `positive`) to ``maximum``.
    static func check(_ value: Double, _ name: String, positive: Bool = false) throws {
        guard value.isFinite, positive ? value > 0 : value >= 0, value <= maximum else {
            throw ValidationError(
                "\(name) must be a number of seconds \(positive ? "above 0" : "from 0") up to \(Int(maximum)) (a week), not \(value)")
        }
    }
}
