import CoreJS
import Foundation

/// What the uploader does with a collector's answer, by status.
///
/// | Status | Outcome |
/// |---|---|
/// | 2xx | delivered: the batch's rows are deleted in one transaction |
/// | 413 | too large: the batch is halved (down to one result, then that one is set aside) |
/// | 400, 422 | refused: the batch is bisected until the refused results are isolated; only those are set aside |
/// | 408, 429, 5xx, no answer | retry the same batch after a pipeline-wide back-off |
/// | 401, 403 | the key or token is refused: delivery stops, said once, the results kept |
/// | any other (1xx, 3xx, 404, …) | kept and retried with back-off, and reported: a configuration problem, not the data's |
///
/// `Retry-After` (seconds or an HTTP date) is honoured on any status: no request is sent before it.
public enum RetryPolicy {
    /// The outcome of one status.
    public enum Outcome: Sendable, Equatable {
        case delivered
        case split(setAside: Bool)
        case retry
        case misconfigured
        case refusedKey
    }

    /// The outcome of `status`.
    public static func outcome(of status: Int) -> Outcome {
        switch status {
        case 200...299: return .delivered
        case 413, 400, 422: return .split(setAside: true)
        case 408, 429, 500...599: return .retry
        case 401, 403: return .refusedKey
        default: return .misconfigured
        }
    }

    /// The back-off before retry number `failures` (1 for the first):
    /// `initial * 2^(failures-1)` up to `maximum`, shortened by up to `jitter` at random
    /// (`random` in 0..<1).
    public static func backoff(failures: Int, initial: Duration, maximum: Duration, jitter: Double, random: Double) -> Duration {
        let exponent = Double(min(max(failures - 1, 0), 62))
        let delay = min(maximum.inSeconds, initial.inSeconds * pow(2, exponent))
        return Seconds.duration(delay * (1 - jitter * random))
    }

    /// The delay a `Retry-After` value asks for, from `now`: a non-negative whole number of
    /// seconds, or an HTTP date (IMF-fixdate, RFC 850 or asctime); `nil` when it is neither.
    public static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
            return Double(text).map(Seconds.duration)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return Seconds.duration(date.timeIntervalSince(now)) }
        }
        return nil
    }
}
