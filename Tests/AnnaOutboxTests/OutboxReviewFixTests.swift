import Anna
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// A second writer said once, a writer lock freed with its outbox, and two results refused
/// for themselves at the head of the queue told from a refused format (against
/// ``RawHTTPServer/judging(_:)``, whose refusals do not name the results).
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
        let server = try RawHTTPServer.judging { body in
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
        let server = try RawHTTPServer.judging { body in
            refused.contains { body.contains("\"\($0)\"") } ? 400 : 200
        }
        defer { server.stop() }
        let uploader = try rig.uploader(server.url, batch: 20)
        guard case .stopped = await uploader.flush(timeout: Rig.drainDeadline) else {
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
