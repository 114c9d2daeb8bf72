import Foundation

/// How the module runtime reaches files: injectable so tests and hosts can serve modules from memory.
///
/// Paths are absolute and use `/` separators.
public protocol FileAccess: Sendable {
    /// The file's contents as UTF-8 text.
    func readFile(atPath path: String) throws -> String
    /// Whether anything (file or folder) exists at `path`.
    func fileExists(atPath path: String) -> Bool
    /// Whether `path` is a folder.
    func isDirectory(atPath path: String) -> Bool
    /// `path` with symbolic links resolved, used to enforce the allowed roots.
    /// Implementations without links return `path` unchanged.
    func canonicalPath(_ path: String) -> String
}

extension FileAccess {
    /// Whether `path` exists and is not a folder.
    public func isFile(atPath path: String) -> Bool {
        fileExists(atPath: path) && !isDirectory(atPath: path)
    }
}

/// File access through `FileManager`: the default.
public struct LocalFileAccess: FileAccess {
    /// Creates the default file access.
    public init() {}

    /// Reads the file as UTF-8.
    public func readFile(atPath path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// `FileManager.fileExists(atPath:)`.
    public func fileExists(atPath path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    /// Whether `FileManager` sees a folder at `path` (following links).
    public func isDirectory(atPath path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// `realpath(3)` of the path; the path itself when it does not exist.
    public func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Files served from memory: a dictionary from absolute path to contents.
///
/// Every ancestor folder of a file exists implicitly.
///
/// ```swift
/// let files = InMemoryFileAccess(["/app/index.js": "module.exports = 42"])
/// ```
public struct InMemoryFileAccess: FileAccess {
    /// The files, by absolute path.
    public let files: [String: String]
    private let directories: Set<String>

    /// Serves `files` (absolute paths to contents).
    public init(_ files: [String: String]) {
        self.files = files
        var directories: Set<String> = ["/"]
        for path in files.keys {
            var folder = ModulePath.directory(of: path)
            while directories.insert(folder).inserted, folder != "/" {
                folder = ModulePath.directory(of: folder)
            }
        }
        self.directories = directories
    }

    /// The stored contents.
    /// - Throws: `CocoaError(.fileNoSuchFile)` for a path that is not stored.
    public func readFile(atPath path: String) throws -> String {
        guard let contents = files[path] else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return contents
    }

    /// Whether a file or an implied folder is at `path`.
    public func fileExists(atPath path: String) -> Bool {
        files[path] != nil || directories.contains(path)
    }

    /// Whether `path` is an implied folder.
    public func isDirectory(atPath path: String) -> Bool {
        directories.contains(path)
    }

    /// Paths in memory have no links.
    public func canonicalPath(_ path: String) -> String { path }
}
