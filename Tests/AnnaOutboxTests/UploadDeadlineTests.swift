import CoreJS
import Foundation
import NIOCore
import Testing

@testable import AnnaOutbox

/// The deadline of a response body: the uploader goes on at the deadline even when reading the
/// body does not end when cancelled (a read stalled on a silent connection). The time limit
/// only catches a hang: in the full parallel run a test may wait minutes for a thread.
@Suite(.timeLimit(.minutes(5))) struct UploadDeadlineTests {
    /// A gate a task waits at, ignoring cancellation, until it is opened.
    final class Gate: Sendable {
        private let waiting = Locked<CheckedContinuation<Void, Never>?>(nil)
        private let opened = Locked(false)

        func wait() async {
            await withCheckedContinuation { continuation in
                let already = opened.withLock { $0 }
                if already { continuation.resume() } else { waiting.withLock { $0 = continuation } }
            }
        }

        func open() {
            opened.withLock { $0 = true }
            waiting.withLock { waiting in
                waiting?.resume()
                waiting = nil
            }
        }
    }

    @Test func aReadThatIgnoresCancellationDoesNotHoldTheUploaderPastTheDeadline() async throws {
        let gate = Gate()
        let reader = Task<[UInt8], any Error> {
            await gate.wait()
            return [1]
        }
        let value = try await HTTPUploadTransport.value(of: reader, before: .now() + .milliseconds(100))
        #expect(value == nil, "the deadline came first")
        #expect(reader.isCancelled)
        gate.open()
        #expect(try await reader.value == [1])
    }

    @Test func aReadThatEndsInTimeGivesItsValueAndErrors() async throws {
        let done = Task<[UInt8], any Error> { [7] }
        #expect(try await HTTPUploadTransport.value(of: done, before: .now() + .seconds(30)) == [7])
        struct Broken: Error {}
        let failing = Task<[UInt8], any Error> { throw Broken() }
        await #expect(throws: Broken.self) { try await HTTPUploadTransport.value(of: failing, before: .now() + .seconds(30)) }
    }
}
