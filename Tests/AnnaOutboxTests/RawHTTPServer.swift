import AnnaTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP server of a few lines of POSIX sockets, for answers a real collector never
/// gives: a `Retry-After` of any text, a redirect, a body that stalls half-way. Each request
/// is read whole (headers and `Content-Length` body), then answered with the raw bytes the
/// test's `answer` gives for its number and body; `stall` keeps the connection open, silent,
/// until the server stops.
final class RawHTTPServer: @unchecked Sendable {
    /// What to send back to request number `n` (from 0).
    struct Answer: Sendable {
        var bytes: String
        var stall = false
    }

    let port: Int
    private let listener: Int32
    private let answer: @Sendable (_ number: Int, _ body: String) -> Answer
    private let lock = NSLock()
    private var held: [Int32] = []
    private var paths: [String] = []
    private var stopped = false

    var url: String { "http://127.0.0.1:\(port)/batch" }
    /// The request lines' paths, in order.
    var requestPaths: [String] { lock.withLock { paths } }
    var requests: Int { requestPaths.count }

    /// A server answering request number `n` (from 0) `answer(n)`.
    convenience init(answer: @escaping @Sendable (Int) -> Answer) throws {
        try self.init { number, _ in answer(number) }
    }

    /// A server answering request number `n` (from 0) with body `body` `answer(n, body)`.
    init(answer: @escaping @Sendable (_ number: Int, _ body: String) -> Answer) throws {
        self.answer = answer
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        let connections = lock.withLock {
            stopped = true
            defer { held = [] }
            return held
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in connections { close(connection) }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            // Headers, then as many body bytes as Content-Length says.
            var headerEnd: Int?
            var contentLength = 0
            while true {
                if let end = Self.find([13, 10, 13, 10], in: buffer) {
                    headerEnd = end + 4
                    let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
                    for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                        contentLength = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                    if buffer.count >= end + 4 + contentLength { break }
                }
                let count = read(connection, &chunk, chunk.count)
                guard count > 0 else {
                    close(connection)
                    return
                }
                buffer += chunk[..<count]
            }
            guard let headerEnd else { return }
            let requestLine = String(decoding: buffer[..<(Self.find([13, 10], in: buffer) ?? 0)], as: UTF8.self)
            let path = requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            let body = String(decoding: buffer[headerEnd..<(headerEnd + contentLength)], as: UTF8.self)
            buffer.removeFirst(headerEnd + contentLength)
            let number = lock.withLock {
                paths.append(path)
                return paths.count - 1
            }
            let reply = answer(number, body)
            let bytes = Array(reply.bytes.utf8)
            _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if reply.stall {
                let keep = lock.withLock {
                    if stopped { return false }
                    held.append(connection)
                    return true
                }
                if !keep { close(connection) }
                return
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }

    /// A server that answers each request `judge(body)` with a generic body
    /// (`{"error":"bad request"}` for a refusal) that does not name the refused results.
    static func judging(_ judge: @escaping @Sendable (String) -> Int) throws -> RawHTTPServer {
        try RawHTTPServer { _, body in
            let status = judge(body)
            return Answer(bytes: response(status, body: status == 200 ? "{}" : #"{"error":"bad request"}"#))
        }
    }

    /// A whole response: `status`, the extra header lines, a body.
    static func response(_ status: Int, _ headers: [String] = [], body: String = "{}") -> String {
        (["HTTP/1.1 \(status) X", "Content-Type: application/json", "Content-Length: \(body.utf8.count)"] + headers)
            .joined(separator: "\r\n") + "\r\n\r\n" + body
    }
}
