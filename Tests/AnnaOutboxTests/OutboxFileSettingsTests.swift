import AnnaTestSupport
import Foundation
import GRDB
import Testing

@testable import AnnaOutbox

/// The SQLite settings an outbox file is opened with: the durability asked for is the one in
/// force on the writer's connection.
@Suite struct OutboxFileSettingsTests {
    @Test(arguments: [(OutboxConfiguration.Durability.processKill, 1), (.powerLoss, 2)])
    func theDurabilityAskedForIsInForce(durability: OutboxConfiguration.Durability, synchronous: Int) throws {
        let folder = try TemporaryFolder()
        var configuration = OutboxConfiguration()
        configuration.durability = durability
        let store = try OutboxStore(path: folder.file("outbox.sqlite"), configuration: configuration)
        let (mode, journal) = try store.database.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA synchronous"), try String.fetchOne(db, sql: "PRAGMA journal_mode"))
        }
        // 1 is NORMAL (a commit reaches the log), 2 is FULL (the log is fsynced at each commit).
        #expect(mode == synchronous)
        #expect(journal == "wal")
    }
}
