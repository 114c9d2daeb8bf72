import Anna
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import GRDB
import Testing

/// A session name the file already recorded from an earlier opening: its message IDs start
/// from 0 again, so the outbox says so once, and still appends.
@Suite(.timeLimit(.minutes(5))) struct OutboxSessionReuseTests {
    static func ids(in path: String) throws -> [String] {
        try OutboxFileReader.pending(path: path).map { $0.message?.messageId ?? "(unreadable)" }
    }

    static func appendAndWrite(_ outbox: Outbox, _ count: Int, session: String) throws {
        for index in 0..<count {
            try outbox.append(AnalyticsResult(value: .number(Double(index))), session: session, time: 0)
            outbox.synchronize()  // one transaction each: only an opening's first result of a session counts
        }
    }

    @Test func aSecondOpeningReportsEachReusedSessionOnceAndAppendsAllTheSame() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        let first = ErrorLog()
        let earlier = try Outbox(path: path, onError: first.handler)
        try Self.appendAndWrite(earlier, 3, session: "main")
        try Self.appendAndWrite(earlier, 2, session: "other")
        earlier.close()
        #expect(first.all.isEmpty, "a first opening has nothing to report: \(first.all)")

        let second = ErrorLog()
        let outbox = try Outbox(path: path, onError: second.handler)
        let sink = outbox.sink(session: "main")
        try sink.append(AnalyticsResult(value: 10), time: 0)
        outbox.synchronize()
        #expect(second.all == [.sessionReused(path: path, session: "main", recorded: 3)])
        // More results of the same session, through the sink and directly: no second report.
        try sink.append(AnalyticsResult(value: 11), time: 0)
        try Self.appendAndWrite(outbox, 2, session: "main")
        // A session appended to directly is checked as well; a fresh one says nothing.
        try Self.appendAndWrite(outbox, 1, session: "other")
        try Self.appendAndWrite(outbox, 2, session: Outbox.newSession())
        outbox.close()
        #expect(
            second.all == [
                .sessionReused(path: path, session: "main", recorded: 3), .sessionReused(path: path, session: "other", recorded: 2),
            ])
        #expect(
            second.all.first?.description
                == "outbox \(path): session 'main' already has 3 results in this file from an earlier run (main#0 to main#2, delivered or not): this run numbers its results from main#0 again, repeating their message IDs, so a collector that drops duplicates keeps only this run's results from main#3 on; give each run its own session (Outbox.newSession(), the default; anna run without --session) unless this is a replay of the same session"
        )
        let ids = try Self.ids(in: path)
        #expect(ids.count == 5 + 4 + 1 + 2)
        #expect(ids.filter { $0 == "main#0" }.count == 2, "the repeated ID is stored all the same")

        // A third opening counts what the second stored too (the highest number per session).
        let third = ErrorLog()
        let again = try Outbox(path: path, onError: third.handler)
        try Self.appendAndWrite(again, 1, session: "main")
        again.close()
        #expect(third.all == [.sessionReused(path: path, session: "main", recorded: 4)])
    }

    @Test func aFreshSessionInAFileWithOthersSaysNothing() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        let earlier = try Outbox(path: path)
        try Self.appendAndWrite(earlier, 2, session: "launch-1")
        earlier.close()
        let errors = ErrorLog()
        let outbox = try Outbox(path: path, onError: errors.handler)
        let sink = outbox.sink(session: "launch-2")
        for index in 0..<3 { try sink.append(AnalyticsResult(value: .number(Double(index))), time: 0) }
        outbox.close()
        #expect(errors.all.isEmpty, "\(errors.all)")
        #expect(try Self.ids(in: path) == ["launch-1#0", "launch-1#1", "launch-2#0", "launch-2#1", "launch-2#2"])
    }
}
