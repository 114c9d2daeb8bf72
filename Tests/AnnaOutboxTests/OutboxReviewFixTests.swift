import Anna
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A second writer said once, a writer lock freed with its outbox, and two results refused
/// for themselves at the head of the queue told from a refused format.
@Suite(.timeLimit(.minutes(2))) struct OutboxReviewFixTests {
    @Test func aSecondWriterIsToldOnceAndItsLaterResultsAreCountedLost() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        let first = try Outbox(path: path)
        try first.append(AnalyticsResult(value: 1), session: "s", time: 0)
        let errors = ErrorLog()
        let second = try Outbox(path: path, onError: errors.handler)
        var thrown: [OutboxError] = []
        for index in 0..<5 {
            do throws(OutboxError) {
                try second.append(AnalyticsResult(value: .number(Double(index))), session: "t", time: 0)
            } catch {
                thrown.append(error)
            }
        }
        #expect(thrown.count == 1, "\(thrown)")
        #expect(thrown.first?.description.contains("another Outbox appends to this file") == true)
        #expect(second.lostCount == 5)
        #expect(try second.stats().dropped["writeFailed"] == 5)
        first.close()
        // Once the first lets go, the second takes the lock and says so.
        try second.append(AnalyticsResult(value: 9), session: "t", time: 0)
        #expect(errors.all.contains { $0.description.contains("appending works again") }, "\(errors.all)")
        second.close()
    }

    @Test func anOutboxLetGoWithoutCloseFreesItsWriterLock() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        try Self.appendAndLetGo(path: path)
        let again = try Outbox(path: path)
        try again.append(AnalyticsResult(value: 2), session: "t", time: 0)
        again.synchronize()
        #expect(try again.stats().pending == 2)
        again.close()
    }

    /// Opens an outbox, appends one result, waits for the write and returns without `close()`.
    private static func appendAndLetGo(path: String) throws {
        let outbox = try Outbox(path: path)
        try outbox.append(AnalyticsResult(value: 1), session: "s", time: 0)
        outbox.synchronize()
    }

    @Test func twoRefusedResultsAtTheHeadDoNotStopTheRest() async throws {
        let rig = try Rig()
        try rig.append(20, session: "s")
        let refused: Set<String> = ["s#0", "s#1"]
        let server = try JudgingServer { body in
            refused.contains { body.contains("\"\($0)\"") } ? 400 : 200
        }
        defer { server.stop() }
        let uploader = try rig.uploader(server.url, batch: 10)
        await rig.expectDrained(uploader)
        let dead = try rig.outbox.deadLetters()
        #expect(Set(dead.map(\.messageId)) == refused, "\(dead)")
        #expect(uploader.tally.delivered == 18, "\(uploader.tally)")
        // The two were judged one by one: no refused format was concluded.
        #expect(!rig.errors.all.contains { if case .formatRefused = $0 { true } else { false } }, "\(rig.errors.all)")
    }

    @Test func aFormatRefusalTakenForThreeBadResultsIsLeftWhenANewerResultIsAccepted() async throws {
        let rig = try Rig()
        try rig.append(10, session: "s")
        // The two oldest and the probe (the batch's last) are refused alike: a refused format.
        let refused: Set<String> = ["s#0", "s#1", "s#9"]
        let server = try JudgingServer { body in
            refused.contains { body.contains("\"\($0)\"") } ? 400 : 200
        }
        defer { server.stop() }
        let uploader = try rig.uploader(server.url, batch: 20)
        guard case .stopped = await uploader.flush(timeoutSeconds: Rig.drainDeadlineSeconds) else {
            Issue.record("not taken for a refused format: \(uploader.tally)")
            return
        }
        // Newer results arrive; the batch's new last one goes alone, is accepted, and the rest
        // are judged one by one.
        try rig.append(10, session: "s", from: 10)
        await rig.expectDrained(uploader)
        #expect(Set(try rig.outbox.deadLetters().map(\.messageId)) == refused)
        #expect(uploader.tally.delivered == 17, "\(uploader.tally)")
    }
}

/// A loopback HTTP server that answers each request `judge(body)`, with a generic body
/// (`{"error":"bad request"}` for a refusal) that does not name the refused results.
final class JudgingServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let judge: @Sendable (String) -> Int

    var url: String { "http://127.0.0.1:\(port)/batch" }

    init(judge: @escaping @Sendable (String) -> Int) throws {
        self.judge = judge
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
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread { [self] in serve(connection) }.start()
        }
    }

    /// Reads each request whole (headers, then `Content-Length` bytes) and answers it.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var request: (headerEnd: Int, length: Int)?
            while request == nil {
                if let end = Self.headerEnd(in: buffer) {
                    let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
                    let length =
                        head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if buffer.count >= end + 4 + length {
                        request = (end + 4, length)
                        break
                    }
                }
                let count = read(connection, &chunk, chunk.count)
                guard count > 0 else { return }
                buffer += chunk[..<count]
            }
            guard let request else { return }
            let body = String(decoding: buffer[request.headerEnd..<(request.headerEnd + request.length)], as: UTF8.self)
            buffer.removeFirst(request.headerEnd + request.length)
            let status = judge(body)
            let answer = status == 200 ? "{}" : #"{"error":"bad request"}"#
            let reply = Array(
                "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(answer.utf8.count)\r\n\r\n\(answer)"
                    .utf8)
            _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    private static func headerEnd(in buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}
