import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a followed file's end is told from its rotation (as `tail -F` tells it).
enum FollowedFile {
    /// Why reading starts over.
    enum Restart {
        /// The file open is shorter than what was read from it: truncated in place.
        case truncated
        /// The path now names another file (opened here).
        case replaced(FileHandle)
    }

    /// Whether reading `handle` (opened at `path`, `offset` bytes read) must start over, and how.
    static func restart(of handle: FileHandle, path: String, offset: UInt64) -> Restart? {
        var open = stat()
        guard fstat(handle.fileDescriptor, &open) == 0 else { return nil }
        var named = stat()
        if stat(path, &named) == 0, named.st_ino != open.st_ino || named.st_dev != open.st_dev,
            let replacement = FileHandle(forReadingAtPath: path)
        {
            return .replaced(replacement)
        }
        if UInt64(open.st_size) < offset { return .truncated }
        return nil
    }
}
