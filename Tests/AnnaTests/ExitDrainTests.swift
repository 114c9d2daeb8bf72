import AnnaTestSupport
import Foundation
import Testing

/// The drain at exit, in a real child process (`anna-exit-helper`) that records through a
/// manager with a recording and an outbox and ends without calling `flush()`.
@Suite("A process that ends without flush() keeps its recording and results", .timeLimit(.minutes(5)))
struct ExitDrainTests {
    static let helper = BuildProducts.executable("anna-exit-helper")
    static let events = 500

    /// Runs the helper with `arguments`, stopped after 30 s (a hang, not a slow run).
    static func run(_ arguments: [String]) async throws -> ChildProcess.Output {
        try await ChildProcess.run(executable: helper, arguments: arguments, timeout: 30)
    }

    /// A module whose task returns each `tap`'s `n`; the recording and outbox paths beside it.
    static func workspace() throws -> TemporaryFolder {
        try TemporaryFolder([
            "m/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' })",
            "m/task/index.js": "match('tap', (node) => ({ n: node.latestEvent().attributes.n }))",
        ])
    }

    /// The `n` of every `tap` event in the recording (which must start with its version line).
    static func recordedTaps(_ folder: TemporaryFolder) throws -> [Int] {
        let lines = try folder.read("recording.ndjson").split(separator: "\n")
        #expect(lines.first == #"{"op":"version","version":1}"#)
        return lines.compactMap { line in
            guard line.contains(#""op":"event""#), let range = line.range(of: #""n":"#) else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    /// How many results the outbox file holds.
    static func outboxCount(_ folder: TemporaryFolder) async throws -> Int? {
        let output = try await run(["count", folder.file("outbox.sqlite")])
        #expect(output.status == 0, "\(output.stderr)")
        return Int(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(
        "returning from main or calling exit(0) without flush(): the recording and the outbox hold every event and result",
        arguments: ["return", "exit"])
    func normalExit(mode: String) async throws {
        let folder = try Self.workspace()
        let started = ContinuousClock.now
        let output = try await Self.run([
            mode, "\(Self.events)", folder.file("m"), folder.file("recording.ndjson"), folder.file("outbox.sqlite"),
        ])
        let elapsed = ContinuousClock.now - started
        #expect(output.status == 0)
        #expect(try Self.recordedTaps(folder) == Array(0..<Self.events))
        let stored = try await Self.outboxCount(folder) ?? -1
        #expect((0...Self.events).contains(stored))
        // Nothing is lost unsaid: what the file lacks is counted in the line (a `tap` never
        // handled is a result never made). The counts are read when the drain ends, so work
        // that lands as the process ends can make them larger than the loss, never smaller.
        if stored < Self.events {
            func count(_ match: Regex<(Substring, Substring)>) -> Int {
                output.stderr.firstMatch(of: match).flatMap { Int($0.1) } ?? 0
            }
            let reported = count(#/(\d+) operations? not handled/#) + count(#/(\d+) results? not stored/#)
            #expect(reported >= Self.events - stored, "\(output.stderr)")
        }
        // The helper takes well under a second. A run that ended before the drain's first bound
        // (1.5 s for the deliveries) met no bound: everything is stored and nothing is said. A
        // machine that starved it for longer may have made the drain run out of time.
        if elapsed < .milliseconds(1500) {
            #expect(output.stderr == "")
            #expect(stored == Self.events)
        }
    }

    @Test("a task that ends the process on the script queue: what ran is kept, what never ran is counted in one line")
    func exitOnTheScriptQueue() async throws {
        let folder = try Self.workspace()
        let output = try await Self.run([
            "task", "\(Self.events)", folder.file("m"), folder.file("recording.ndjson"), folder.file("outbox.sqlite"),
        ])
        #expect(output.status == 0)
        #expect(try Self.recordedTaps(folder) == Array(0..<Self.events))
        #expect(try await Self.outboxCount(folder) == Self.events)
        #expect(
            output.stderr
                == "anna: the process ended before its analytics were saved: \(Self.events) operations not handled (nor recorded) "
                + "(the drain at exit waits at most 2 s); await manager.flush() before the process ends\n")
    }
}
