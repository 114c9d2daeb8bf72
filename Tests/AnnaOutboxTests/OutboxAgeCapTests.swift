import AnnaTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

@testable import AnnaOutbox

/// The age cap over groups whose results were appended at known times: it drops a group's
/// oldest results, and the group then counts as old as its oldest result left.
@Suite struct OutboxAgeCapTests {
    /// Ten results of `session`, appended one second apart from `first`, as one group.
    static func group(session: String, appendedFrom first: Double) -> [PendingGroup] {
        let entries = (0..<10).map { n in
            OutboxStore.Entry(
                message: OutboxMessage(
                    messageId: MessageID.make(session: session, seq: Int64(n)), session: session, seq: Int64(n), time: 0,
                    task: "t", path: "/p", event: "e", result: "\(n)"),
                bytes: 100, appendedAt: first + Double(n))
        }
        return PendingGroup.groups(of: entries)
    }

    @Test func aGroupPartlyPastTheCapLosesItsOldestAndTakesTheAgeOfTheRest() throws {
        let folder = try TemporaryFolder()
        var configuration = OutboxConfiguration()
        configuration.maximumAge = .seconds(100)
        let store = try OutboxStore(path: folder.file("outbox.sqlite"), configuration: configuration)
        let groups = Self.group(session: "a", appendedFrom: 1000) + Self.group(session: "b", appendedFrom: 1050)
        #expect(groups.count == 2)

        // The cutoff, 1004.5, falls inside the first group: its five oldest go.
        try store.write(groups, drops: [:], now: 1104.5)
        var stats = try store.stats(now: 1104.5)
        #expect(stats.pending == 15)
        #expect(stats.dropped == ["age": 5])
        #expect(stats.oldestAgeSeconds == 99.5, "the oldest left was appended at 1005")

        // A write a moment later finds nothing past the cap.
        try store.write([], drops: [:], now: 1104.6)
        stats = try store.stats(now: 1104.6)
        #expect(stats.pending == 15)
        #expect(stats.dropped == ["age": 5])

        // At 1155 the cutoff is 1055: the rest of the first group and half the second go.
        try store.write([], drops: [:], now: 1155)
        stats = try store.stats(now: 1155)
        #expect(stats.pending == 5)
        #expect(stats.dropped == ["age": 15])
        #expect(stats.oldestAgeSeconds == 100)
    }

    /// The oldest time is looked for (a read of every group's row) only when the results
    /// appended could be past the cap: not in every transaction.
    @Test func theOldestIsLookedForOnlyWhenItCouldBePastTheCutoff() throws {
        let folder = try TemporaryFolder()
        var configuration = OutboxConfiguration()
        configuration.maximumAge = .seconds(100)
        let store = try OutboxStore(path: folder.file("outbox.sqlite"), configuration: configuration)
        let looks = Mutex(0)
        store.database.writeWithoutTransaction { db in
            db.trace { event in
                if "\(event)".contains("min(appendedAt)") { looks.withLock { $0 += 1 } }
            }
        }
        // The first write does not know the oldest time yet: one look.
        try store.write(Self.group(session: "a", appendedFrom: 1000), drops: [:], now: 1010)
        #expect(looks.withLock { $0 } == 1)
        // Results appended at 1000 to 1009 are not past the cap until 1100: no look.
        for (n, now) in [1020.0, 1050, 1099].enumerated() {
            try store.write(Self.group(session: "b\(n)", appendedFrom: now - 10), drops: [:], now: now)
        }
        #expect(looks.withLock { $0 } == 1)
        // At 1104.5 they could be: it looks, and the five oldest go.
        try store.write([], drops: [:], now: 1104.5)
        #expect(looks.withLock { $0 } == 2)
        #expect(try store.stats(now: 1104.5).dropped == ["age": 5])
    }

    /// Results put back (dead letters requeued) into a file found empty are still found by
    /// the age cap once they are past it.
    @Test func requeuedResultsAreFoundByTheAgeCap() throws {
        let folder = try TemporaryFolder()
        var configuration = OutboxConfiguration()
        configuration.maximumAge = .seconds(100)
        let store = try OutboxStore(path: folder.file("outbox.sqlite"), configuration: configuration)
        try store.write(Self.group(session: "a", appendedFrom: 1000), drops: [:], now: 1010)
        let all = try store.oldest(count: 10, bytes: 1 << 20)
        #expect(all.count == 10)
        #expect(try store.deadLetter(all, status: 500, body: "", reason: "test", now: 1011) == 0, "none over the cap")
        // Past the results' cutoff, the store finds nothing waiting.
        try store.write([], drops: [:], now: 1200)
        #expect(try store.stats(now: 1200).pending == 0)
        #expect(try store.requeueDeadLetters(now: 1201).requeued == 10)
        try store.write([], drops: [:], now: 1300)
        #expect(try store.stats(now: 1300).pending == 10, "not yet past the cap")
        try store.write([], drops: [:], now: 1302)
        let stats = try store.stats(now: 1302)
        #expect(stats.dropped == ["age": 10], "requeued at 1201, past the cutoff of 1202")
        #expect(stats.pending == 0)
    }
}
