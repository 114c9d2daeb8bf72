import Foundation

/// Resident memory of this process, read from `/proc/self/statm`.
///
/// The second field of `statm` is the resident set in pages. It counts everything the
/// process holds: the Swift heap, JavaScriptCore's heap (garbage not yet collected
/// included) and the allocator's free lists, which is what a host application pays.
enum MemorySampler {
    /// The resident set size in bytes.
    /// - Throws: ``BenchError/memoryUnavailable(_:)`` when `/proc/self/statm` cannot be read
    ///   (not Linux, or no procfs).
    static func residentBytes() throws -> Int {
        let text = try procFile("statm")
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else {
            throw BenchError.memoryUnavailable("unexpected /proc/self/statm: \(text)")
        }
        return pages * pageSize
    }

    /// Starts the peak resident set (``peakResidentBytes()``) over from the current one, by
    /// writing 5 to `/proc/self/clear_refs`.
    /// - Throws: ``BenchError/memoryUnavailable(_:)`` when the file cannot be written.
    static func resetPeak() throws {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else {
            throw BenchError.memoryUnavailable("cannot open /proc/self/clear_refs for writing")
        }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            try handle.close()
        } catch {
            throw BenchError.memoryUnavailable("cannot reset the peak in /proc/self/clear_refs: \(error)")
        }
    }

    /// The largest resident set since the start or the last ``resetPeak()`` (`VmHWM` in
    /// `/proc/self/status`), in bytes.
    /// - Throws: ``BenchError/memoryUnavailable(_:)``.
    static func peakResidentBytes() throws -> Int {
        let text = try procFile("status")
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
        else { throw BenchError.memoryUnavailable("no VmHWM in /proc/self/status") }
        return kilobytes * 1024
    }

    /// The text of `/proc/self/<name>`.
    private static func procFile(_ name: String) throws -> String {
        do {
            return try String(contentsOfFile: "/proc/self/" + name, encoding: .utf8)
        } catch {
            throw BenchError.memoryUnavailable("/proc/self/\(name): \(error)")
        }
    }

    /// The size of a memory page.
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
}
