#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's resident memory, read cheaply (a few microseconds): the first test before
/// the engine's own heap statistics, which walk the whole heap (milliseconds on a large one).
enum ResidentMemory {
    /// Bytes resident now, or `nil` where `/proc/self/statm` cannot be read.
    static func bytes() -> Int? {
        let descriptor = open("/proc/self/statm", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        // "size resident shared …", in pages.
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Whether a heap may hold more than `limit`: never when the whole process
    /// holds less (then the heap's own statistics are not read).
    static func mayExceed(_ limit: Int) -> Bool {
        guard let resident = bytes() else { return true }
        return resident > limit
    }
}
