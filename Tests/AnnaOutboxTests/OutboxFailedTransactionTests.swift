import AnnaTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

@testable import AnnaOutbox

/// A transaction that fails at its commit (a full disk, say) leaves the file as it was, and
/// the store's counters of waiting results with it: otherwise each failed retry of a write
/// would count its results again, and the row and byte caps would later drop real results.
@Suite struct OutboxFailedTransactionTests {
    /// Refuses every commit while `refusing` holds, as a commit that cannot reach the disk.
    final class CommitRefusal: TransactionObserver, Sendable {
        struct Refused: Error {}
        let refusing = Mutex(true)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseWillCommit() throws { if refusing.withLock({ $0 }) { throw Refused() } }
        func databaseDidCommit(_ db: Database) {}
        func databaseDidRollback(_ db: Database) {}
    }

    static func groups(session: String, count: Int) -> [PendingGroup] {
        OutboxRowIDTests.groups(session: session, count: count)
    }

    @Test func aRefusedCommitCountsNothing() throws {
        let folder = try TemporaryFolder()
        var configuration = OutboxConfiguration()
        configuration.maximumRows = 25
        let store = try OutboxStore(path: folder.file("outbox.sqlite"), configuration: configuration)
        try store.write(Self.groups(session: "a", count: 10), drops: [:], now: 1000)
        #expect(store.pendingRows == 10)

        let refusal = CommitRefusal()
        store.database.add(transactionObserver: refusal)
        // Three failed tries of the same 10 results: before, each counted them again (40 > 25).
        for _ in 0..<3 {
            #expect(throws: CommitRefusal.Refused.self) { try store.write(Self.groups(session: "b", count: 10), drops: [:], now: 1000) }
            #expect(store.pendingRows == 10)
        }
        let stored = try store.oldest(count: 100, bytes: .max)
        #expect(throws: CommitRefusal.Refused.self) { try store.delete(Array(stored.prefix(4))) }
        #expect(store.pendingRows == 10)

        // The disk has room again: the write lands whole, and no cap drops anything.
        refusal.refusing.withLock { $0 = false }
        try store.write(Self.groups(session: "b", count: 10), drops: [:], now: 1000)
        #expect(store.pendingRows == 20)
        let stats = try store.stats(now: 1000)
        #expect(stats.pending == 20)
        #expect(stats.dropped.isEmpty, "\(stats.dropped)")
        let sessions = try store.oldest(count: 100, bytes: .max).compactMap { $0.message?.session }
        #expect(sessions == Array(repeating: "a", count: 10) + Array(repeating: "b", count: 10))
    }
}
