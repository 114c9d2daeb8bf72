import AnnaTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a child's pipe with `poll(2)` and a deadline, so a child that stays silent (or keeps
/// running) cannot block a test past it.
enum PipeReader {
    /// Reads `pipe` on a thread of its own until what was read contains `marker` (with `nil`,
    /// until the pipe ends), the pipe ends, or `seconds` pass; returns what was read.
    static func read(_ pipe: Pipe, until marker: String?, within seconds: Double = 20) async throws -> String {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        return try await onOwnThread { blockingRead(descriptor, until: marker, within: seconds) }
    }

    /// ``read(_:until:within:)`` on the calling thread, which it blocks for at most `seconds`.
    static func blockingRead(_ descriptor: Int32, until marker: String?, within seconds: Double) -> String {
        var data = [UInt8]()
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline, marker.map({ !String(decoding: data, as: UTF8.self).contains($0) }) ?? true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, max(1, Int32(deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }  // the pipe ended
            data += buffer[0..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }
}
