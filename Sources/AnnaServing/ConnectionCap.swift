#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many connections a server of this process (the inspector's, the collector) serves at
/// once by default: half of the file descriptors beyond the first 64 that the soft
/// `RLIMIT_NOFILE` allows, between 8 and 1,024 (so `ulimit -n 256` gives 96 and 1,024 gives
/// 480): the rest stay for the engine, its files and the host app.
public enum ConnectionCap {
    /// The cap for the current soft limit on open files.
    public static var `default`: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 8 }
        return cap(forDescriptorLimit: Int(clamping: limit.rlim_cur))
    }

    /// The cap for a limit of `descriptors` open files.
    public static func cap(forDescriptorLimit descriptors: Int) -> Int {
        min(1024, max(8, (descriptors - 64) / 2))
    }
}
