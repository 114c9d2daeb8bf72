internal import CJavaScriptCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stops scripts that run past the time limit or hold more heap than the memory limit.
///
/// JavaScriptCore asks ``shouldStop(_:)`` after every ``slice`` of CPU time a script runs in
/// one entry from Swift. An entry may run many operations (a batch): the script writes a new
/// number to the ``marker`` as each one starts, so the time limit applies to each operation
/// of its own. An operation is timed from the first slice that sees it, so it is stopped
/// after between `limit` and `limit + slice` seconds of its own; the heap is checked at each
/// slice.
///
/// Letting a script go on needs the engine's polling traps (``canLetScriptsGoOn``): with the
/// signals it uses otherwise, a watchdog that once let a script go on is not asked again.
/// Without them the first ask, at the limit, stops the call.
final class Watchdog {
    /// Why the last stopped script was stopped.
    enum Stop: Equatable {
        case time
        case memory(bytes: Int)
    }

    /// How often a running script is checked (seconds of CPU time).
    static let slice = 0.05

    /// Whether the engine polls for traps (set before the first context of the process):
    /// then the watchdog can let a script go on after a slice.
    static let canLetScriptsGoOn = anna_use_polling_traps()

    let limit: Double
    let memoryLimit: Int?
    /// Set when the watchdog stopped a script; cleared by whoever reports it.
    var stop: Stop?
    /// A stop after ``stop`` in the same entry from Swift: the stopped call had ended, and
    /// JavaScriptCore ran the promise jobs queued before it (as it does when any call ends,
    /// a stopped one too), one of which was stopped in turn. Cleared with ``stop``.
    var laterStop: Stop?
    /// Where scripts write a new number as they start an operation.
    var marker: UnsafeMutablePointer<Double>?
    /// Entries from Swift (depth 0) so far, and how deep the current one is.
    private var entries = 0
    private var depth = 0
    private var seenEntries = -1
    private var seenMarker = Double.nan
    private var operationStart = 0.0
    /// The process's resident memory at the first check of the entry under way.
    private var entryResident: Int?

    init(limit: Double, memoryLimit: Int?) {
        self.limit = limit
        self.memoryLimit = memoryLimit
    }

    /// Has JavaScriptCore ask ``shouldStop(_:)`` after the next slice of a script's CPU time
    /// in `group`. The library asks once per limit it is given, so each answer that lets the
    /// script go on gives it the limit again.
    func arm(_ group: JSContextGroupRef) {
        let goesOn = Self.canLetScriptsGoOn
        JSContextGroupSetExecutionTimeLimit(
            group, goesOn ? min(limit, Self.slice) : limit,
            { context, info in
                guard let context, let info else { return true }
                let watchdog = Unmanaged<Watchdog>.fromOpaque(info).takeUnretainedValue()
                if let stop = watchdog.shouldStop(context) ?? (Watchdog.canLetScriptsGoOn ? nil : .time) {
                    watchdog.record(stop)
                    return true
                }
                watchdog.arm(JSContextGetGroup(context))
                return false
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// Whether no entry from Swift is under way (a stop is reported by the outermost one).
    var isOutermost: Bool { depth == 0 }

    /// Runs `body` as an entry from Swift: at depth 0, a new operation for the time limit.
    func entering<Result>(_ body: () throws -> Result) rethrows -> Result {
        if depth == 0 { entries &+= 1 }
        depth += 1
        defer { depth -= 1 }
        return try body()
    }

    /// What a running script holds, when it is more than `limit`: the heap, or what the
    /// process's resident memory grew by since the first check of this entry, whichever is
    /// more (the heap's statistics leave out the storage of array buffers).
    private func heldBytes(_ context: JSContextRef, past limit: Int) -> Int? {
        let heap = heapBytes(context, past: limit) ?? 0
        let grown = entryResident.flatMap { start in ResidentMemory.bytes().map { $0 - start } } ?? 0
        let held = max(heap, grown)
        return held > limit ? held : nil
    }

    /// Notes a stop: the first of an entry as ``stop``, one after it as ``laterStop``. What
    /// runs next (a promise job, as the stopped call ends) is timed from the next check.
    private func record(_ stop: Stop) {
        if self.stop == nil { self.stop = stop } else if laterStop == nil { laterStop = stop }
        seenMarker = .nan
    }

    /// Why the script running in `context` must stop now (asked on its thread), or `nil`.
    func shouldStop(_ context: JSContextRef) -> Stop? {
        let now = Self.threadCPUSeconds()
        let operation = marker?.pointee ?? 0
        if entries != seenEntries {
            entryResident = ResidentMemory.bytes()
        }
        if entries != seenEntries || !(operation == seenMarker) {
            seenEntries = entries
            seenMarker = operation
            operationStart = now
        }
        if let memoryLimit, let bytes = heldBytes(context, past: memoryLimit) { return .memory(bytes: bytes) }
        return now - operationStart >= limit ? .time : nil
    }

    /// The bytes the context group's heap holds (as the engine counts it: its blocks and what
    /// it reports as owned outside them), or a negative number where it cannot tell.
    static func heapBytes(_ context: JSContextRef) -> Int {
        anna_heap_bytes(context)
    }

    /// What the heap holds, when it is more than `limit`, else `nil`. Nothing is measured
    /// while the process holds less than `limit` in all (the heap's statistics walk it).
    func heapBytes(_ context: JSContextRef, past limit: Int) -> Int? {
        guard ResidentMemory.mayExceed(limit) else { return nil }
        let bytes = Self.heapBytes(context)
        return bytes > limit ? bytes : nil
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
