#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's resident memory, read cheaply (one `pread` of `/proc/self/statm`, kept open):
/// the first test before the engine's own heap statistics, which walk the whole heap
/// (milliseconds on a large one).
enum ResidentMemory {
    private static let statm = open("/proc/self/statm", O_RDONLY)
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Bytes resident now, or `nil` where `/proc/self/statm` cannot be read.
    static func bytes() -> Int? {
        guard statm >= 0 else { return nil }
        var buffer = (Int64(0), Int64(0), Int64(0), Int64(0), Int64(0), Int64(0), Int64(0), Int64(0))
        let count = withUnsafeMutableBytes(of: &buffer) { pread(statm, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        // "size resident shared …", in pages: the second number.
        return withUnsafeBytes(of: &buffer) { bytes in
            var field = 0
            var pages = 0
            for byte in bytes.prefix(count) {
                if byte == UInt8(ascii: " ") {
                    if field == 1 { return pages * pageSize }
                    field += 1
                } else if field == 1, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    pages = pages * 10 + Int(byte - UInt8(ascii: "0"))
                }
            }
            return nil
        }
    }

    /// Whether the process holds more than `limit` (or cannot tell): below it, no part of it can.
    static func mayExceed(_ limit: Int) -> Bool {
        guard let resident = bytes() else { return true }
        return resident > limit
    }
}
