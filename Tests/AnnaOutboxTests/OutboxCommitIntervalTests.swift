import AnnaOutbox
import AnnaTestSupport
import Foundation
import Testing

/// ``OutboxConfiguration/commitInterval``: an idle outbox writes a result at once; results
/// appended soon after a write wait for the interval, unless someone waits for them. (The
/// limit guards against a hang; on a loaded 2-core host a test may wait minutes for a thread.)
@Suite(.timeLimit(.minutes(5))) struct OutboxCommitIntervalTests {
    /// A configuration whose interval no test outlasts.
    static func longInterval() -> OutboxConfiguration {
        var configuration = OutboxConfiguration()
        configuration.commitInterval = .seconds(600)
        return configuration
    }

    /// The results in the file itself (not those waiting in memory).
    static func inFile(_ rig: Rig) throws -> Int {
        try OutboxFileReader.pending(path: rig.folder.file("outbox.sqlite")).count
    }

    /// Waits until the file holds `count` results; false when 20 s pass first.
    static func waitForFile(_ rig: Rig, count: Int) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while try inFile(rig) < count {
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    @Test func anIdleOutboxWritesAtOnceAndTheNextResultWaitsForTheInterval() throws {
        let rig = try Rig(configuration: Self.longInterval())
        try rig.append(1, waiting: false)
        #expect(try Self.waitForFile(rig, count: 1), "the first result was not written without waiting")
        try rig.append(1, from: 1, waiting: false)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try Self.inFile(rig) == 1)
        #expect(try rig.outbox.stats().pending == 2, "a result waiting in memory is counted as pending")
        rig.outbox.synchronize()
        #expect(try Self.inFile(rig) == 2)
        #expect(rig.errors.all.isEmpty, "\(rig.errors.all)")
    }

    @Test func everyWayOfWaitingWritesAPutOffResultNow() async throws {
        let rig = try Rig(configuration: Self.longInterval())
        try rig.append(1, waiting: false)
        #expect(try Self.waitForFile(rig, count: 1))
        try rig.append(1, from: 1, waiting: false)
        #expect(rig.outbox.drain(before: .now + .seconds(30)) == 0)
        #expect(try Self.inFile(rig) == 2)
        try rig.append(1, from: 2, waiting: false)
        await rig.outbox.waitUntilWritten()
        #expect(try Self.inFile(rig) == 3)
        try rig.append(1, from: 3, waiting: false)
        rig.outbox.close()
        #expect(try Self.inFile(rig) == 4)
        #expect(rig.outbox.lostCount == 0)
        #expect(rig.errors.all.isEmpty, "\(rig.errors.all)")
    }

    /// A negative interval counts as 0 (it does not trap).
    @Test(arguments: [Duration.zero, .seconds(-5)])
    func aZeroIntervalWritesWheneverTheLastWriteEnds(interval: Duration) throws {
        var configuration = OutboxConfiguration()
        configuration.commitInterval = interval
        let rig = try Rig(configuration: configuration)
        try rig.append(1, waiting: false)
        #expect(try Self.waitForFile(rig, count: 1))
        try rig.append(1, from: 1, waiting: false)
        #expect(try Self.waitForFile(rig, count: 2), "the second result waited for a write nobody asked for")
    }
}
