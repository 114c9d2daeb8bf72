#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many connections the collector serves at once by default: half of the file descriptors
/// beyond the first 64 that the soft `RLIMIT_NOFILE` allows, between 8 and 1,024 (the rule of
/// the inspector's server; `ulimit -n 256` gives 96).
public enum CollectorConnectionCap {
    /// The cap for the current soft limit on open files.
    public static var `default`: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 8 }
        return min(1024, max(8, (Int(clamping: limit.rlim_cur) - 64) / 2))
    }
}
