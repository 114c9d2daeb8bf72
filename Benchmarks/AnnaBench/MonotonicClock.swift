import Dispatch
import Foundation

/// Nanoseconds on the monotonic clock: the one time source of every measurement.
///
/// `DispatchTime` reads `CLOCK_MONOTONIC` on Linux; it never jumps with the wall clock, so
/// differences are durations.
enum MonotonicClock {
    /// Now, in nanoseconds since an arbitrary start.
    static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    /// The calling thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`): what a loop
    /// cost its own thread, whatever the other threads took from the cores meanwhile.
    static func threadCPUNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Seconds between two readings (0 when `end` is before `start`).
    static func seconds(from start: UInt64, to end: UInt64) -> Double {
        end > start ? Double(end - start) / 1e9 : 0
    }

    /// Sleeps until `deadline` (a reading of ``now()``); returns at once when it has passed.
    ///
    /// The kernel adds its timer slack (about 50 µs for ordinary threads), so callers that
    /// need a rate must catch up on whatever fell due meanwhile.
    static func sleep(until deadline: UInt64) {
        let current = now()
        guard deadline > current else { return }
        let remaining = deadline - current
        var request = timespec(tv_sec: Int(remaining / 1_000_000_000), tv_nsec: Int(remaining % 1_000_000_000))
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }
}
