import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain TCP connection to a server on 127.0.0.1, for requests exactly as written (no client
/// library normalises their path or headers) and for connections that stop mid-request.
public final class RawConnection: @unchecked Sendable {
    private let socketDescriptor: Int32

    /// Connects to 127.0.0.1:`port`.
    public init(port: Int) throws {
        #if canImport(Glibc)
            socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            socketDescriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socketDescriptor >= 0 else { throw RawConnectionError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            _ = Glibc.close(socketDescriptor)
            throw RawConnectionError("connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    private var isClosed = false

    deinit { close() }

    /// Closes the connection (once).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = Glibc.close(socketDescriptor)
    }

    /// Sends `text` as it is.
    public func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socketDescriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw RawConnectionError("send: errno \(errno)") }
            sent += count
        }
    }

    /// Reads until the server closes the connection or `seconds` pass; returns what was read
    /// and whether the server closed it. Waits on a thread of its own (not one of the few that
    /// run the tests' tasks and the server's handlers).
    public func readUntilClosed(within seconds: Double) async throws -> (text: String, closed: Bool) {
        try await onOwnThread { self.blockingReadUntilClosed(within: seconds) }
    }

    private func blockingReadUntilClosed(within seconds: Double) -> (text: String, closed: Bool) {
        var data = [UInt8]()
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            var poller = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
            let wait = max(1, Int32(deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, wait) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socketDescriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (String(decoding: data, as: UTF8.self), true) }
            data += buffer[0..<count]
        }
        return (String(decoding: data, as: UTF8.self), false)
    }

    /// Reads until what was read contains `marker`, the server closes the connection, or
    /// `seconds` pass; returns what was read.
    public func read(until marker: String, within seconds: Double) async throws -> String {
        try await onOwnThread { self.blockingRead(until: marker, within: seconds) }
    }

    private func blockingRead(until marker: String, within seconds: Double) -> String {
        var data = [UInt8]()
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline, !String(decoding: data, as: UTF8.self).contains(marker) {
            var poller = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, max(1, Int32(deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socketDescriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends a whole request with `Connection: close` and returns the status and body of the answer.
    public static func request(port: Int, _ head: String, body: String = "") async throws -> (status: Int, text: String) {
        let connection = try RawConnection(port: port)
        try connection.send(head + "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        let (text, _) = try await connection.readUntilClosed(within: 20)
        let statusLine = text.prefix { $0 != "\r" }.split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawConnectionError("no answer to \(head): \(text)") }
        return (status, text)
    }
}

/// A raw connection failed.
public struct RawConnectionError: Error, CustomStringConvertible {
    /// What failed, with the errno or the answer.
    public let description: String
    /// An error that says `description`.
    public init(_ description: String) { self.description = description }
}
