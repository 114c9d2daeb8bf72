import CoreJS
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One writer per outbox file: an exclusive `flock` on `<file>.lock`, taken by the first
/// append and held until the outbox is closed (or its process ends, killed or not). A second
/// `Outbox` appending to the same file, in this process or another, is refused: its message
/// IDs would repeat the first one's. Readers and uploaders take no lock.
///
/// The lock is on a file of its own: SQLite's locks on the database are POSIX record locks,
/// which any `close` of another descriptor of that file would release.
///
/// Released by ``release()`` or, for an `Outbox` let go without `close()`, when the lock is
/// freed; a later `Outbox` on the same file in this process can then append.
final class WriterLock: Sendable {
    /// The lock file's descriptor, `nil` once released.
    private let descriptor: Locked<Int32?>

    /// Takes the lock for `path`; throws a message saying who holds it, or why it cannot be taken.
    init(path: String) throws(OutboxError) {
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .storage(path: path, message: "cannot create the writer lock \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(descriptor)
            if reason == EWOULDBLOCK {
                throw .storage(
                    path: path,
                    message:
                        "another Outbox appends to this file (in this process or another): one writer per file, or its message IDs would repeat; append through one Outbox (one sink per session), or use another file"
                )
            }
            throw .storage(path: path, message: "cannot lock \(lockPath): \(String(cString: strerror(reason)))")
        }
        self.descriptor = Locked(descriptor)
    }

    deinit { release() }

    /// Releases the lock (the file stays, empty); a second call does nothing.
    func release() {
        let descriptor = descriptor.withLock { held in
            defer { held = nil }
            return held
        }
        if let descriptor { close(descriptor) }
    }
}
