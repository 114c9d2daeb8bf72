import Anna
import AnnaCollector
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@Suite("Deleting everything an outbox stores", .timeLimit(.minutes(2)))
struct OutboxDeleteAllTests {
    @Test("deleteAll removes the waiting results and the dead letters from the file and the disk; a session keeps its place")
    func deleteAll() async throws {
        let rig = try Rig()
        try rig.append(6) { ["n": .number(Double($0)), "tag": .string($0 < 2 ? "POISON private-marker" : "fine")] }
        var failures = FailureInjection()
        failures.rejectMessageContaining = "POISON"
        _ = try await rig.deliver(to: failures)
        #expect(try rig.outbox.deadLetters().count == 2)
        try rig.append(30, from: 6) { ["private-marker": .number(Double($0))] }
        #expect(try rig.outbox.stats().pending == 30)

        #expect(try rig.outbox.deleteAll() == 32)
        let stats = try rig.outbox.stats()
        #expect(stats.pending == 0 && stats.deadLetter == 0 && stats.dropped.isEmpty)
        for suffix in ["", "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: rig.folder.file("outbox.sqlite" + suffix)))) ?? Data()
            #expect(bytes.range(of: Data("private-marker".utf8)) == nil, "outbox.sqlite\(suffix) still holds a deleted result")
        }

        // The session goes on where it was: no message ID is used twice.
        try rig.append(1, from: 36)
        let server = try await rig.deliver().server
        #expect(server.collector.requests.flatMap(\.messageIds) == ["s1#36"])
    }
}
