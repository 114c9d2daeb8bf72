import Foundation

/// The modification times of task files as last seen, to tell which changed (see
/// ``RuntimeConfiguration/watchTasks``). Files are compared on disk.
struct TaskFileWatch {
    /// The least time between two looks.
    static let interval = Duration.milliseconds(200)

    /// Modification time by path; `nil` for a file that did not exist.
    private var seen: [String: Date?] = [:]
    private var lastLook: ContinuousClock.Instant?

    /// Whether a look is due now (and, if so, counts it as done).
    mutating func isDue(now: ContinuousClock.Instant = .now) -> Bool {
        if let lastLook, now - lastLook < Self.interval { return false }
        lastLook = now
        return true
    }

    /// Remembers the files of `files` not seen before, as they are now.
    mutating func note(_ files: [String]) {
        for file in files where seen[file] == nil { seen[file] = .some(Self.modificationTime(of: file)) }
    }

    /// The files of `files` whose modification time differs from the last look (created,
    /// changed or removed since); files seen for the first time are only remembered.
    mutating func changed(among files: [String]) -> [String] {
        var changed: [String] = []
        for file in files {
            let time = Self.modificationTime(of: file)
            if let known = seen[file], known != time { changed.append(file) }
            seen[file] = .some(time)
        }
        return changed
    }

    private static func modificationTime(of file: String) -> Date? {
        do {
            return try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
        } catch {
            return nil  // not there (yet): a file that appears later counts as changed
        }
    }
}
