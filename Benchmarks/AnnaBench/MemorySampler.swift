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
        let text: String
        do {
            text = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        } catch {
            throw BenchError.memoryUnavailable("\(error)")
        }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else {
            throw BenchError.memoryUnavailable("unexpected /proc/self/statm: \(text)")
        }
        return pages * pageSize
    }

    /// The size of a memory page.
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
}
