import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Loopback ports for tests.
public enum LoopbackPort {
    /// A port on 127.0.0.1 that nothing listens on now: bound, read back, released (for a
    /// server to listen on).
    /// - Throws: `POSIXError` when no socket can be bound.
    public static func unused() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        return try bindToLoopback(descriptor)
    }

    /// A port on 127.0.0.1 that refuses connections until ``RefusingPort/close()``: bound and
    /// not listening. Held, not released as ``unused()``'s is, so that neither a server of a
    /// test running beside nor a client's own source port (a socket connecting to itself)
    /// can take it meanwhile.
    /// - Throws: `POSIXError` when no socket can be bound.
    public static func refusing() throws -> RefusingPort {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        do {
            return RefusingPort(port: try bindToLoopback(descriptor), descriptor: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
    }

    private static func bindToLoopback(_ descriptor: Int32) throws -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A loopback port held bound without listening: connecting to it is refused.
public final class RefusingPort: @unchecked Sendable {
    /// The port number.
    public let port: Int
    private var descriptor: Int32

    init(port: Int, descriptor: Int32) {
        self.port = port
        self.descriptor = descriptor
    }

    /// Releases the port.
    public func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    deinit { close() }
}
