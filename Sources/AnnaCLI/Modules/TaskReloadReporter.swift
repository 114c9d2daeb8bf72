import CoreJS
import Foundation

/// The module's file access, saying `reloaded task/index.js` on `output` whenever a file
/// below `root` is read again after it changed: what `--watch` does when it reloads a task
/// file (or a helper it requires).
///
/// The engine reads a file each time it loads it, through this access; the first read of a
/// file is its load, and a later read of the same file with a new modification time is a
/// reload of a changed file. A read of an unchanged file (debug mode re-requires task files
/// at every load) says nothing.
final class TaskReloadReporter: FileAccess {
    let base: any FileAccess
    /// Files below this folder are reported, relative to it.
    let root: String
    let output: any OutputSink
    /// The modification time of each file at its last read.
    private let seen = Locked<[String: Date?]>([:])

    init(base: any FileAccess, root: String, output: any OutputSink) {
        self.base = base
        self.root = LocalFileAccess().canonicalPath(root)
        self.output = output
    }

    func readFile(atPath path: String) throws -> String {
        let text = try base.readFile(atPath: path)
        guard path.hasPrefix(root + "/") else { return text }
        let time = Self.modificationTime(of: path)
        let changed = seen.withLock { seen in
            defer { seen[path] = .some(time) }
            guard let known = seen[path] else { return false }
            return known != time
        }
        if changed { output.write("reloaded \(path.dropFirst(root.count + 1))\n") }
        return text
    }

    func fileExists(atPath path: String) -> Bool { base.fileExists(atPath: path) }
    func isDirectory(atPath path: String) -> Bool { base.isDirectory(atPath: path) }
    func canonicalPath(_ path: String) -> String { base.canonicalPath(path) }

    private static func modificationTime(of path: String) -> Date? {
        do {
            return try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        } catch {
            return nil  // read a moment ago, gone now: the next read is a change either way
        }
    }
}
