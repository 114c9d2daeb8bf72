import AnnaTestSupport
import Foundation
import Testing

/// `anna run --outbox`, `anna outbox` and `anna collect` together, as separate processes.
@Suite("anna run --outbox with anna collect", .timeLimit(.minutes(3)))
struct OutboxCommandTests {
    static let demo = RepositoryFixtures.demo
    var session: String { Self.demo.appendingPathComponent("session.ndjson").path }
    var module: String { Self.demo.appendingPathComponent("module").path }
    var expectedResults: String {
        get throws { try String(contentsOf: Self.demo.appendingPathComponent("expected-results.ndjson"), encoding: .utf8) }
    }

    @Test("every result of the demo reaches the collector through two injected 503s, and the output is unchanged")
    func deliversThroughFailures() async throws {
        let workspace = try Workspace()
        let collector = try CollectorProcess(store: workspace.file("collected.sqlite"), extra: ["--fail-status", "503", "--fail-count", "2"])
        defer { collector.stop() }
        let outbox = workspace.file("outbox.sqlite")
        let run = try await AnnaProcess.run(
            [
                "run", "--events", session, "--module", module, "--outbox", outbox, "--deliver", collector.url, "--session", "demo",
                "--drain-timeout", "60",
            ], timeout: 120)
        #expect(run.status == 0)
        #expect(run.stdout == (try expectedResults))
        #expect(run.stderr.contains("every result delivered (session demo; \(collector.url) 1209 in "), "\(run.stderr)")
        let stats = try await AnnaInProcess.run(["outbox", "stats", outbox, "--json"])
        #expect(stats.stdout.contains(#""pending":0"#))
        let lines = collector.stop()
        #expect(lines.filter { $0.hasSuffix(": 503 (injected)") }.count == 2)
        #expect(Self.newResults(in: lines) == (try expectedResults).split(separator: "\n").count)
        // Each result is stamped with the time of the line that produced it, not the run's.
        let eventTimes = Set(try String(contentsOfFile: session, encoding: .utf8).split(separator: "\n").compactMap(Self.time(of:)))
        let listed = try await AnnaInProcess.run(["collect", "--list", workspace.file("collected.sqlite")])
        let stamped = listed.stdout.split(separator: "\n").map(Self.time(of:))
        #expect(!stamped.isEmpty && stamped.allSatisfy { $0.map(eventTimes.contains) == true }, "\(stamped.prefix(3)) not in the session's times")
    }

    /// The `time` of one JSON line: milliseconds since the epoch, from a number or an ISO 8601 text.
    static func time(of line: Substring) -> Double? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        if let number = object["time"] as? Double { return number }
        guard let text = object["time"] as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map { ($0.timeIntervalSince1970 * 1000).rounded() }
    }

    @Test("results kept without --deliver are counted by stats and delivered by outbox flush, once")
    func flushLater() async throws {
        let workspace = try Workspace()
        let outbox = workspace.file("outbox.sqlite")
        let run = try await AnnaInProcess.run(["run", "--events", session, "--module", module, "--outbox", outbox, "--session", "later"])
        #expect(run.status == 0)
        let count = (try expectedResults).split(separator: "\n").count
        #expect(run.stderr.contains("\(count) results waiting (session later)"))
        let before = try await AnnaInProcess.run(["outbox", "stats", outbox, "--json"])
        #expect(before.stdout.contains(#""pending":\#(count)"#))

        let collector = try CollectorProcess(store: workspace.file("collected.sqlite"))
        let flush = try await AnnaProcess.run(["outbox", "flush", outbox, "--deliver", collector.url], timeout: 120)
        #expect(flush.status == 0)
        let after = try await AnnaInProcess.run(["outbox", "stats", outbox, "--json"])
        #expect(after.stdout.contains(#""pending":0"#))
        #expect(Self.newResults(in: collector.stop()) == count)
    }

    /// The results the collector's batch lines (`batch 3: 100 results (100 new, 0 duplicates) -> 200`) count as new.
    static func newResults(in lines: [String]) -> Int {
        lines.compactMap { line -> Int? in
            guard let open = line.firstIndex(of: "("), let space = line[open...].firstIndex(of: " ") else { return nil }
            return Int(line[line.index(after: open)..<space])
        }.reduce(0, +)
    }
}

/// `anna collect --port 0` in the background: its port, read from the line it prints when listening.
final class CollectorProcess: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private var stoppedLines: [String]?
    let url: String

    init(store: String, extra: [String] = []) throws {
        process.executableURL = AnnaProcess.executable
        process.arguments = ["collect", "--port", "0", "--store", store] + extra
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var text = ""
        let handle = errors.fileHandleForReading
        while !text.contains("\n") {
            let data = handle.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let range = text.range(of: "listening on "), let end = text[range.upperBound...].firstIndex(of: "\n") else {
            process.terminate()
            throw CollectorStartError(output: text)
        }
        url = String(text[range.upperBound..<end]) + "batch"
    }

    /// Stops the collector (once) and returns the lines it printed.
    @discardableResult
    func stop() -> [String] {
        if let stoppedLines { return stoppedLines }
        process.terminate()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        stoppedLines = lines
        return lines
    }
}

/// `anna collect` exited before it listened.
struct CollectorStartError: Error, CustomStringConvertible {
    let output: String
    var description: String { "anna collect did not start: \(output)" }
}
