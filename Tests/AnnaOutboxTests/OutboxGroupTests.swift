import Anna
import AnnaCollector
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import GRDB
import Testing

/// Results appended together are stored many to a row (`messageGroup`), each with its own
/// delivery state: order, destinations, damage, a stop halfway through a group.
@Suite(.timeLimit(.minutes(2))) struct OutboxGroupTests {
    /// A transport that accepts everything and, at its first request, reads how the file is split.
    final class PeekingTransport: UploadTransport {
        let path: String
        private let state = Locked<(messages: [OutboxMessage], firstSplit: (rows: Int, groups: Int)?)>(([], nil))
        var messages: [OutboxMessage] { state.withLock { $0.messages } }
        var firstSplit: (rows: Int, groups: Int)? { state.withLock { $0.firstSplit } }

        init(path: String) { self.path = path }

        func send(body: [UInt8], headers: [(String, String)]) async throws -> UploadResponse {
            let batch = try WireFormat.decode(body).batch
            let split = state.withLock { $0.firstSplit } == nil ? try OutboxGroupTests.split(path) : nil
            state.withLock { state in
                state.messages += batch
                if let split { state.firstSplit = split }
            }
            return UploadResponse(status: 200)
        }
    }

    /// The rows of `message` and of `messageGroup` in the file.
    static func split(_ path: String) throws -> (rows: Int, groups: Int) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM message") ?? 0,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM messageGroup") ?? 0
            )
        }
    }

    @Test func appendsAreStoredInGroupsAndDeliveredInOrderAsNeeded() async throws {
        let rig = try Rig()
        let path = rig.folder.file("outbox.sqlite")
        // Another connection holds the file's write lock while the results are appended: the
        // writer waits for it (its busy timeout), so the results are stored together whatever
        // the machine's pace: the first few in the writer's first group, the rest 256 a group.
        var held = Configuration()
        held.allowsUnsafeTransactions = true  // the transaction spans two accesses
        let holder = try DatabaseQueue(path: path, configuration: held)
        try holder.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        try rig.append(2500, waiting: false)
        try holder.inDatabase { db in try db.execute(sql: "COMMIT") }
        try holder.close()
        rig.outbox.synchronize()
        let stored = try Self.split(path)
        #expect(stored.rows == 0 && (10...12).contains(stored.groups), "\(stored.rows) rows, \(stored.groups) groups")
        #expect(try rig.outbox.stats().pending == 2500)
        #expect(try OutboxFileReader.pending(path: path).map { $0.message?.seq } == (0..<2500).map { Int64($0) })
        let transport = PeekingTransport(path: path)
        let uploader = try OutboxUploader(
            outbox: rig.outbox, configuration: UploadConfiguration(url: "http://127.0.0.1:9/"), transport: transport)
        await rig.expectDrained(uploader)
        #expect(transport.messages.map(\.messageId) == (0..<2500).map { "s1#\($0)" })
        #expect(transport.messages.allSatisfy { $0.task == "t/e" && $0.path == "/p" && $0.event == "e" })
        // Delivery reads the groups themselves: no result becomes a row of its own.
        let first = try #require(transport.firstSplit)
        #expect(first == (0, stored.groups), "\(first)")
        #expect(try Self.split(path) == (0, 0))
        #expect(rig.errors.all.isEmpty, "\(rig.errors.all)")
    }

    /// Accepts the first `accepted` requests, then refuses the key (401: the uploader stops).
    final class TiringTransport: UploadTransport {
        let accepted: Int
        private let state = Locked<(requests: Int, messages: [OutboxMessage])>((0, []))
        var messages: [OutboxMessage] { state.withLock { $0.messages } }
        init(accepted: Int) { self.accepted = accepted }

        func send(body: [UInt8], headers: [(String, String)]) async throws -> UploadResponse {
            let batch = try WireFormat.decode(body).batch
            return state.withLock { state in
                state.requests += 1
                guard state.requests <= accepted else { return UploadResponse(status: 401) }
                state.messages += batch
                return UploadResponse(status: 200)
            }
        }
    }

    @Test func deliveryStoppedHalfwayThroughAGroupResumesAfterTheLastDeliveredResult() async throws {
        let rig = try Rig()
        let path = rig.folder.file("outbox.sqlite")
        try rig.append(2500)
        let tiring = TiringTransport(accepted: 3)
        let first = try OutboxUploader(
            outbox: rig.outbox, configuration: UploadConfiguration(url: "http://127.0.0.1:9/"), transport: tiring)
        _ = await first.flush(timeout: Rig.drainDeadline)
        #expect(tiring.messages.map(\.seq) == (0..<300).map { Int64($0) })
        rig.outbox.close()
        #expect(try OutboxFileReader.pending(path: path).map { $0.message?.seq } == (300..<2500).map { Int64($0) })
        let (seqs, reopened, errors) = try await Self.deliver(path)
        #expect(seqs == (300..<2500).map { Int64($0) })
        #expect(errors.all.isEmpty, "\(errors.all)")
        reopened.close()
    }

    @Test func eachDestinationKeepsItsOrderAcrossIdentityChanges() async throws {
        var configuration = OutboxConfiguration()
        configuration.destinations = ["a", "b"]
        let rig = try Rig(configuration: configuration)
        for part in 0..<3 {
            try rig.append(100, from: part * 100)
            try rig.outbox.identify(userId: "user-\(part)")
        }
        rig.outbox.synchronize()
        #expect(try rig.outbox.stats().destinations.mapValues(\.pending) == ["a": 303, "b": 303])
        for destination in ["a", "b"] {
            let transport = PeekingTransport(path: rig.folder.file("outbox.sqlite"))
            var upload = UploadConfiguration(url: "http://127.0.0.1:9/")
            upload.destination = destination
            await rig.expectDrained(try OutboxUploader(outbox: rig.outbox, configuration: upload, transport: transport))
            let results = transport.messages.filter { $0.session == "s1" }
            #expect(results.map(\.seq) == (0..<300).map { Int64($0) }, "\(destination)")
            #expect(transport.messages.count == 303, "\(destination): the three identify calls too")
        }
    }

    /// An outbox file holding results 0..<50 of `s1` in groups (one or a few), closed.
    static func oneGroup() throws -> (rig: Rig, path: String) {
        let rig = try Rig()
        try rig.append(50)
        rig.outbox.close()
        return (rig, rig.folder.file("outbox.sqlite"))
    }

    /// Changes the bytes of the file's groups with `change`, which returns whether it changed any.
    static func damage(_ path: String, _ change: (inout [UInt8]) -> Bool) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        let changed = try queue.write { db in
            var changed = 0
            for row in try Row.fetchAll(db, sql: "SELECT id, messages FROM messageGroup") {
                var blob = [UInt8](row["messages"] as Data)
                guard change(&blob) else { continue }
                try db.execute(sql: "UPDATE messageGroup SET messages = ? WHERE id = ?", arguments: [Data(blob), row["id"]])
                changed += 1
            }
            return changed
        }
        #expect(changed == 1)
    }

    /// Runs `sql` on the file.
    static func changeColumns(_ path: String, _ sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in try db.execute(sql: sql) }
    }

    /// The offset of the header of the entry of position `seq` in a group's bytes (each entry:
    /// a 4-byte length, an 8-byte hash, then that many bytes: its index, 4 bytes, then its
    /// position, 8), if it is there.
    static func entryOffset(seq: Int64, in blob: [UInt8]) -> Int? {
        func integer(at offset: Int, size: Int) -> Int {
            blob[offset..<(offset + size)].reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        var offset = 0
        while offset + 24 <= blob.count {
            if integer(at: offset + 16, size: 8) == seq { return offset }
            offset += 12 + integer(at: offset, size: 4)
        }
        return nil
    }

    /// Reopens the file, delivers what it can and returns the delivered sequence numbers, the
    /// outbox (open) and what it reported.
    static func deliver(_ path: String) async throws -> (seqs: [Int64], outbox: Outbox, errors: ErrorLog) {
        let errors = ErrorLog()
        let outbox = try Outbox(path: path, onError: errors.handler)
        let transport = PeekingTransport(path: path)
        let uploader = try OutboxUploader(
            outbox: outbox, configuration: UploadConfiguration(url: "http://127.0.0.1:9/"), transport: transport)
        #expect(await uploader.flush(timeout: Rig.drainDeadline) == .empty)
        return (transport.messages.map(\.seq), outbox, errors)
    }

    @Test func aChangedEntryIsSetAsideAloneWithItsContent() async throws {
        let (rig, path) = try Self.oneGroup()
        try Self.damage(path) { blob in
            let marker = Array(#"{"n":10}"#.utf8)
            guard let at = blob.indices.first(where: { blob[$0...].starts(with: marker) }) else { return false }
            blob[at + 5] = UInt8(ascii: "9")
            return true
        }
        let (seqs, outbox, errors) = try await Self.deliver(path)
        #expect(seqs == (0..<50).filter { $0 != 10 }.map { Int64($0) })
        #expect(errors.all.contains(.unreadableRows(path: path, count: 1)), "\(errors.all)")
        let dead = try outbox.deadLetters()
        #expect(dead.map(\.messageId) == ["s1#10"] && dead.first?.reason.contains("checksum") == true, "\(dead)")
        outbox.close()
        withExtendedLifetime(rig) {}  // its folder holds the file
    }

    @Test func aDamagedLengthLosesOnlyItsEntryAndSaysSo() async throws {
        let (rig, path) = try Self.oneGroup()
        try Self.damage(path) { blob in
            guard let at = Self.entryOffset(seq: 10, in: blob) else { return false }
            for byte in at..<(at + 4) { blob[byte] = 0xFF }
            return true
        }
        let (seqs, outbox, errors) = try await Self.deliver(path)
        #expect(seqs == (0..<50).filter { $0 != 10 }.map { Int64($0) })
        #expect(errors.all.contains(.unreadableLost(path: path, count: 1)), "\(errors.all)")
        #expect(try outbox.stats().dropped["corrupt"] == 1)
        outbox.close()
        withExtendedLifetime(rig) {}  // its folder holds the file
    }

    @Test func aGroupWhoseOwnColumnsChangedSetsItsResultsAside() async throws {
        let (rig, path) = try Self.oneGroup()
        try Self.changeColumns(path, "UPDATE messageGroup SET session = 'someone-else'")
        let (seqs, outbox, errors) = try await Self.deliver(path)
        #expect(seqs.isEmpty)
        let setAside = errors.all.reduce(0) { total, error in
            if case let .unreadableRows(_, count) = error { total + count } else { total }
        }
        #expect(setAside == 50, "\(errors.all)")
        let dead = try outbox.deadLetters()
        #expect(dead.count == 50 && dead.allSatisfy { $0.reason.contains("group's checksum") }, "\(dead.prefix(2))")
        outbox.close()
        withExtendedLifetime(rig) {}  // its folder holds the file
    }

    @Test func requeuedDeadLettersGoAfterTheResultsStillPacked() async throws {
        let rig = try Rig()
        try rig.append(10) { ["n": .number(Double($0)), "tag": .string($0 == 3 ? "POISON" : "fine")] }
        var failures = FailureInjection()
        failures.rejectMessageContaining = "POISON"
        let strict = try await rig.collector(failures)
        await rig.expectDrained(try rig.uploader(strict.url))
        await strict.stop()
        try rig.append(5, from: 10)
        #expect(try rig.outbox.requeueDeadLetters() == (requeued: 1, kept: 0))
        let transport = PeekingTransport(path: rig.folder.file("outbox.sqlite"))
        let uploader = try OutboxUploader(
            outbox: rig.outbox, configuration: UploadConfiguration(url: "http://127.0.0.1:9/"), transport: transport)
        await rig.expectDrained(uploader)
        #expect(transport.messages.map(\.seq) == [10, 11, 12, 13, 14, 3])
    }
}
