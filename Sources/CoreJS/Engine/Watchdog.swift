#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
internal import CJavaScriptCore

/// Stops scripts that run too long or grow the heap too far.
///
/// JavaScriptCore asks ``shouldStop(_:)`` after every ``slice`` of CPU time a script runs in
/// one entry from Swift. An entry may run many operations (a batch): the script writes a new
/// number to the ``marker`` when it starts each one, so the time limit applies to each
/// operation, never to the batch. An operation is timed from the first slice that sees it,
/// so it is stopped after between `limit` and `limit + slice` seconds of its own.
final class Watchdog {
    /// Why the last stopped script was stopped.
    enum Stop: Equatable {
        case time
        case memory(bytes: Int)
    }

    /// How often a running script is checked (seconds of CPU time).
    static let slice = 0.05

    let limit: Double
    let memoryLimit: Int?
    /// Set when the watchdog stopped a script; cleared by whoever reports it.
    var stop: Stop?
    /// Where scripts write the number of the operation they start (a `Float64Array`'s storage).
    var marker: UnsafeMutablePointer<Double>?
    /// Entries from Swift (depth 0) so far, and how deep the current one is.
    private(set) var entries = 0
    private var depth = 0
    private var seenEntries = -1
    private var seenMarker = Double.nan
    private var operationStart = 0.0

    init(limit: Double, memoryLimit: Int?) {
        self.limit = limit
        self.memoryLimit = memoryLimit
    }

    /// Has JavaScriptCore ask ``shouldStop(_:)`` after the next slice of a script's CPU time
    /// in `group`. The library asks once per limit it is given, so each answer gives it the
    /// limit again (for the next slice, or the next entry after a stop).
    func arm(_ group: JSContextGroupRef) {
        JSContextGroupSetExecutionTimeLimit(
            group, min(limit, Self.slice),
            { context, info in
                guard let context, let info else { return true }
                let watchdog = Unmanaged<Watchdog>.fromOpaque(info).takeUnretainedValue()
                if watchdog.shouldStop(context) {
                    JSContextGroupClearExecutionTimeLimit(JSContextGetGroup(context))
                    return true
                }
                watchdog.arm(JSContextGetGroup(context))
                return false
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// Runs `body` as an entry from Swift: at depth 0, a new operation for the time limit.
    func entering<Result>(_ body: () throws -> Result) rethrows -> Result {
        if depth == 0 { entries &+= 1 }
        depth += 1
        defer { depth -= 1 }
        return try body()
    }

    /// Whether no entry from Swift is under way (a stop is reported by the outermost one).
    var isOutermost: Bool { depth == 0 }

    /// Whether the script running in `context` must stop now (asked on its thread).
    func shouldStop(_ context: JSContextRef) -> Bool {
        debugPrintStop("shouldStop \(Self.threadCPUSeconds()) \(entries) \(marker?.pointee ?? -1)")
        let now = Self.threadCPUSeconds()
        let operation = marker?.pointee ?? 0
        if entries != seenEntries || !(operation == seenMarker) {
            seenEntries = entries
            seenMarker = operation
            operationStart = now
        }
        if now - operationStart >= limit {
            stop = .time
            return true
        }
        if let memoryLimit {
            let bytes = Self.heapBytes(context)
            if bytes > memoryLimit {
                stop = .memory(bytes: bytes)
                return true
            }
        }
        return false
    }

    /// The bytes the context group's heap holds: its objects and the memory they own outside
    /// it (array buffers, strings).
    static func heapBytes(_ context: JSContextRef) -> Int {
        0 // anna_heap_bytes(context)
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
import Foundation
func debugPrintStop(_ s: String) { FileHandle.standardError.write((s + "\n").data(using: .utf8)!) }
