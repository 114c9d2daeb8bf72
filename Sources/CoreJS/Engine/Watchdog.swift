internal import CJavaScriptCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stops a script once one entry from Swift has run for the time limit (CPU time), and says
/// why: the time limit, or the heap past the memory limit.
///
/// JavaScriptCore asks once per entry (the callback never lets a script go on: in this
/// library a watchdog that once did is not asked again in later entries). An entry may run
/// many operations (a batch); the script writes each one's start time to the ``marker``,
/// so a stop can tell how long the stopped operation itself ran.
final class Watchdog {
    /// Why the last stopped script was stopped.
    enum Stop: Equatable {
        case time
        case memory(bytes: Int)
    }

    let limit: Double
    let memoryLimit: Int?
    /// Set when the watchdog stopped a script; cleared by whoever reports it.
    var stop: Stop?
    /// How long the stopped operation ran, in seconds (set with ``stop``).
    private(set) var stoppedOperationSeconds: Double?
    /// Where scripts write when the operation they start started (ms since 1970).
    var marker: UnsafeMutablePointer<Double>?
    private var depth = 0
    private var entryStart = 0.0

    init(limit: Double, memoryLimit: Int?) {
        self.limit = limit
        self.memoryLimit = memoryLimit
    }

    /// Has JavaScriptCore stop a script in `group` after the limit, asking ``stopping(_:)`` why.
    func arm(_ group: JSContextGroupRef) {
        JSContextGroupSetExecutionTimeLimit(
            group, limit,
            { context, info in
                guard let context, let info else { return true }
                Unmanaged<Watchdog>.fromOpaque(info).takeUnretainedValue().stopping(context)
                return true
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// Whether no entry from Swift is under way (a stop is reported by the outermost one).
    var isOutermost: Bool { depth == 0 }

    /// Runs `body` as an entry from Swift.
    func entering<Result>(_ body: () throws -> Result) rethrows -> Result {
        if depth == 0 {
            entryStart = Self.wallMilliseconds()
            marker?.pointee = 0
        }
        depth += 1
        defer { depth -= 1 }
        return try body()
    }

    /// Notes why the script running in `context` is stopped (asked on its thread).
    private func stopping(_ context: JSContextRef) {
        let now = Self.wallMilliseconds()
        stoppedOperationSeconds = (now - max(entryStart, marker?.pointee ?? 0)) / 1000
        if let memoryLimit {
            let bytes = Self.heapBytes(context)
            if bytes > memoryLimit {
                stop = .memory(bytes: bytes)
                return
            }
        }
        stop = .time
    }

    /// The bytes the context group's heap holds: its objects and the memory they own outside
    /// it (array buffers, strings).
    static func heapBytes(_ context: JSContextRef) -> Int {
        anna_heap_bytes(context)
    }

    static func wallMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }
}
