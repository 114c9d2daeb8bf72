import Anna
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// Captures every body the uploader sends and checks it against the format.
final class CapturingTransport: UploadTransport {
    private let state = Locked<(bodies: [String], malformed: [String], messages: [OutboxMessage])>(([], [], []))
    /// Each well-formed body, as text.
    var bodies: [String] { state.withLock { $0.bodies } }
    var malformed: [String] { state.withLock { $0.malformed } }
    var messages: [OutboxMessage] { state.withLock { $0.messages } }

    func send(body: [UInt8], headers: [(String, String)]) async throws -> UploadResponse {
        do {
            let decoded = try WireFormat.decode(body)
            state.withLock {
                $0.bodies.append(String(decoding: body, as: UTF8.self))
                $0.messages += decoded.batch
            }
        } catch {
            state.withLock { $0.malformed.append(error.description) }
        }
        return UploadResponse(status: 200)
    }
}

/// Damaged outbox files (byte flips, torn pages, truncation) never crash the program nor yield a
/// malformed body; intact rows are delivered unchanged; what is lost is reported.
/// ANNA_CORRUPTION_FILES sets how many files: 100 by default (`make test`), 1,000 in
/// `make test-crash`; the kinds of damage take turns.
@Suite struct OutboxCorruptionTests {
    static let files = ProcessInfo.processInfo.environment["ANNA_CORRUPTION_FILES"].flatMap(Int.init) ?? 100
    static let rows = 200

    enum Mutation: CaseIterable {
        case byteFlips, tornPage, truncation
    }

    /// What the files of one kind of damage came to.
    struct Tally {
        var files = 0
        var salvaged = 0
        var delivered = 0
    }

    @Test func mutatedFilesAreSalvagedNeverSentMalformed() async throws {
        let folder = try TemporaryFolder()
        let base = folder.file("base.sqlite")
        let original = try Outbox(path: base)
        var expected: [String: String] = [:]
        for index in 0..<Self.rows {
            let value: JSONValue = ["n": .number(Double(index)), "text": .string(String(repeating: "abc", count: index % 40))]
            try original.append(AnalyticsResult(value: value), session: "s", time: Double(index))
            expected["s#\(index)"] = value.jsonText
            // The first half is written in transactions of 15 (small groups, several to a page),
            // the rest as it comes (one group or a few).
            if index < Self.rows / 2, index % 15 == 14 { original.synchronize() }
        }
        original.close()
        let pristine = try Data(contentsOf: URL(fileURLWithPath: base))
        var generator = SplitMix64(seed: UInt64(ProcessInfo.processInfo.environment["ANNA_FUZZ_SEED"].flatMap(UInt64.init) ?? 20))
        var delivered = 0
        var silentLosses = 0
        var salvaged = 0
        var changed = 0
        var tallies: [Mutation: Tally] = [:]
        for number in 0..<Self.files {
            var bytes = [UInt8](pristine)
            let mutation = Mutation.allCases[number % 3]
            switch mutation {
            case .byteFlips:
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
                }
            case .tornPage:
                let page = Int.random(in: 0..<(bytes.count / 4096), using: &generator)
                let start = page * 4096 + Int.random(in: 0..<4096, using: &generator)
                let end = min(bytes.count, page * 4096 + 4096)
                for offset in start..<end { bytes[offset] = UInt8.random(in: 0...255, using: &generator) }
            case .truncation:
                bytes.removeLast(Int.random(in: 1..<bytes.count, using: &generator))
            }
            let path = folder.file("mutated-\(number).sqlite")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let errors = ErrorLog()
            let outbox: Outbox
            do {
                outbox = try Outbox(path: path, onError: errors.handler)
            } catch {
                Issue.record("file \(number) (\(mutation)): cannot be opened: \(error)")
                continue
            }
            let transport = CapturingTransport()
            let uploader = try OutboxUploader(
                outbox: outbox, configuration: UploadConfiguration(url: "http://127.0.0.1:9/unused"), transport: transport,
                sleep: { _ in }, random: { 0 })
            let outcome = await uploader.flush(timeout: Rig.drainDeadline)
            #expect(outcome == .empty, "file \(number) (\(mutation)): \(outcome); \(uploader.tally); \(errors.all.prefix(3))")
            #expect(transport.malformed.isEmpty, "file \(number) (\(mutation)): \(transport.malformed)")
            for message in transport.messages {
                #expect(expected[message.messageId] == message.result, "file \(number): \(message.messageId) changed")
            }
            delivered += transport.messages.count
            if outbox.salvage != nil { salvaged += 1 }
            tallies[mutation, default: Tally()].files += 1
            tallies[mutation, default: Tally()].salvaged += outbox.salvage == nil ? 0 : 1
            tallies[mutation, default: Tally()].delivered += transport.messages.count
            if bytes != [UInt8](pristine) { changed += 1 }
            let lossReported =
                outbox.salvage != nil
                || errors.all.contains {
                    switch $0 {
                    case .unreadableRows, .unreadableLost: true
                    default: false
                    }
                }
            if Set(transport.messages.map(\.messageId)).count < Self.rows, !lossReported {
                silentLosses += 1
                let got = Set(transport.messages.map(\.seq))
                print(
                    "file \(number) (\(mutation)): \(transport.messages.count) delivered; missing \((0..<Int64(Self.rows)).filter { !got.contains($0) }); \(errors.all); \((try? outbox.stats()).map { "\($0)" } ?? "")"
                )
            }
            outbox.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        #expect(silentLosses == 0, "\(silentLosses) files lost results without a report")
        #expect(delivered > Self.files * Self.rows / 3, "only \(delivered) intact results delivered")
        print("corruption: \(Self.files) files (\(changed) changed), \(salvaged) salvaged, \(delivered) results delivered unchanged")
        for mutation in Mutation.allCases {
            let tally = tallies[mutation, default: Tally()]
            print("  \(mutation): \(tally.files) files, \(tally.salvaged) salvaged, \(tally.delivered) results delivered")
        }
        if Self.files >= Mutation.allCases.count {
            #expect(Set(tallies.keys) == Set(Mutation.allCases), "a kind of damage was never tried: \(tallies.keys)")
        }
    }
}
