import AnnaTestSupport
import Foundation
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
}
