import Foundation

/// Writes whole buffers to a file descriptor, as `write(2)` may take them in parts.
enum DescriptorWrite {
    /// Writes all of `bytes` to `descriptor` (again after `EINTR`); the reason when it
    /// cannot (`No space left on device`, `Broken pipe`), `nil` when everything was written.
    static func all(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> String? {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return written < 0 ? String(cString: strerror(errno)) : "nothing was written"
            }
        }
        return nil
    }
}
