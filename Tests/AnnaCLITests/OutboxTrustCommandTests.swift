import AnnaTestSupport
import Foundation
import Testing

/// `anna run --outbox` and `anna outbox` when things go wrong: a collector that refuses the
/// format or is down, absurd numbers, a file that is not an outbox, a file that cannot grow.
@Suite("anna outbox when things go wrong", .timeLimit(.minutes(3)))
struct OutboxTrustCommandTests {
    static let demo = RepositoryFixtures.demo
    var session: String { Self.demo.appendingPathComponent("session.ndjson").path }
    var module: String { Self.demo.appendingPathComponent("module").path }
    static let results = 1209

    @Test("a collector answering 400 to everything: a few requests, one line saying so, exit 1 for run and flush")
    func aCollectorThatRefusesTheFormat() async throws {
        let workspace = try Workspace()
        let collector = try CollectorProcess(
            store: workspace.file("collected.sqlite"), extra: ["--fail-status", "400", "--fail-count=-1"])
        defer { collector.stop() }
        let outbox = workspace.file("outbox.sqlite")
        let run = try await AnnaProcess.run(
            ["run", "--events", session, "--module", module, "--outbox", outbox, "--deliver", collector.url, "--drain-timeout", "5"],
            timeout: 120)
        #expect(run.status == 1, "\(run.stderr)")
        let outboxLines = run.stderrLines.filter { $0.contains("outbox") }
        #expect(outboxLines.count == 2, "the refusal once, the summary once: \(run.stderr)")
        #expect(outboxLines.first?.contains("refuses every result alike with status 400 ({\"error\":\"injected 400\"})") == true)
        #expect(outboxLines.last?.contains("\(Self.results) results not delivered") == true, "\(outboxLines)")

        let flush = try await AnnaProcess.run(["outbox", "flush", outbox, "--deliver", collector.url], timeout: 120)
        #expect(flush.status == 1)
        #expect(flush.stderrLines.count == 2, "\(flush.stderr)")
        #expect(flush.stderrLines.last?.contains("\(Self.results) results still waiting") == true, "\(flush.stderr)")
        let requests = collector.stop().filter { $0.contains("(injected)") }.count
        #expect(requests < 60, "\(requests) requests for \(Self.results) results")

        let stats = try await AnnaInProcess.run(["outbox", "stats", outbox, "--json"])
        #expect(stats.stdout.contains(#""pending":\#(Self.results)"#) && stats.stdout.contains(#""deadLetter":0"#), "\(stats.stdout)")
    }

    @Test("a flush to a closed port ends at its timeout, exit 1, one line naming connection refused")
    func aClosedPort() async throws {
        let workspace = try Workspace()
        let outbox = workspace.file("outbox.sqlite")
        let run = try await AnnaInProcess.run(["run", "--events", session, "--module", module, "--outbox", outbox])
        #expect(run.status == 0)
        let refusing = try LoopbackPort.refusing()
        defer { refusing.close() }
        let port = refusing.port
        let flush = try await AnnaProcess.run(
            ["outbox", "flush", outbox, "--deliver", "http://127.0.0.1:\(port)/batch", "--timeout", "2"], timeout: 60)
        #expect(!flush.timedOut)
        #expect(flush.status == 1)
        #expect(flush.stderrLines.filter { $0.contains("connection refused") }.count == 1, "\(flush.stderr)")
        #expect(flush.stderrLines.last?.contains("\(Self.results) results still waiting") == true, "\(flush.stderr)")
    }

    @Test(
        "unbounded numbers are usage errors",
        arguments: [
            ["--drain-timeout", "inf"], ["--drain-timeout", "1e300"], ["--drain-timeout", "nan"], ["--request-timeout", "inf"],
            ["--request-timeout", "nan"],
        ])
    func unboundedNumbersForRun(_ option: [String]) async throws {
        let workspace = try Workspace()
        let run = try await AnnaInProcess.run(
            ["run", "--events", session, "--module", module, "--outbox", workspace.file("o.sqlite")] + option)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("\(option[0]) must be a number of seconds"), "\(run.stderr)")
        #expect(!run.signalled)
    }

    @Test("unbounded timeouts of flush are usage errors", arguments: ["inf", "nan", "1e300", "-1"])
    func unboundedNumbersForFlush(_ value: String) async throws {
        let workspace = try Workspace()
        let flush = try await AnnaInProcess.run(
            ["outbox", "flush", workspace.file("o.sqlite"), "--deliver", "http://127.0.0.1:9/batch", "--timeout=\(value)"])
        #expect(flush.status == 64, "\(flush.stderr)")
        #expect(flush.stderr.contains("--timeout must be a number of seconds from 0 up to 604800"), "\(flush.stderr)")
    }

    @Test("stats and dead refuse a file that is not an outbox, and leave it as it was", arguments: ["stats", "dead"])
    func aFileThatIsNotAnOutbox(_ command: String) async throws {
        let workspace = try Workspace()
        let database = workspace.file("notes.sqlite")
        try Self.makeForeignDatabase(at: database)
        try workspace.write("notes.txt", "dear diary\n")
        for file in [database, workspace.file("notes.txt")] {
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let listing = try FileManager.default.contentsOfDirectory(atPath: workspace.path).sorted()
            let result = try await AnnaInProcess.run(["outbox", command, file])
            #expect(result.status == 66, "\(result.stderr)")
            #expect(result.stderr.contains("\(file): not an outbox file"), "\(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path).sorted() == listing)
        }
    }

    @Test("results that cannot be written (a file size limit) end the run with 73 and the count")
    func aFileThatCannotGrow() async throws {
        let workspace = try Workspace()
        let outbox = workspace.file("outbox.sqlite")
        let command =
            "trap '' XFSZ; ulimit -f 256; exec \(AnnaProcess.executable.path) run --events \(session) --module \(module) --outbox \(outbox) --session full"
        let run = try await Self.shell(command)
        #expect(run.status == 73, "\(run.stderr)")
        let summary = try #require(run.stderr.split(separator: "\n").last.map(String.init))
        let lost = Int(summary.split(separator: " ").dropFirst(2).first ?? "") ?? -1
        #expect(summary.contains("could not be written and are lost"), "\(run.stderr)")
        let stats = try await AnnaInProcess.run(["outbox", "stats", outbox, "--json"])
        #expect(stats.status == 0)
        let pending = Self.number("pending", in: stats.stdout)
        #expect(lost > 0 && pending + lost == Self.results, "\(lost) lost, \(pending) kept: \(stats.stdout)")
    }

    @Test("the same stream run twice into one outbox repeats its message IDs")
    func aReplayRepeatsItsIDs() async throws {
        let workspace = try Workspace()
        let collector = try CollectorProcess(store: workspace.file("collected.sqlite"))
        defer { collector.stop() }
        let outbox = workspace.file("outbox.sqlite")
        for _ in 0..<2 {
            let run = try await AnnaProcess.run(
                ["run", "--events", session, "--module", module, "--outbox", outbox, "--session", "again"], timeout: 120)
            #expect(run.status == 0, "\(run.stderr)")
        }
        let flush = try await AnnaProcess.run(["outbox", "flush", outbox, "--deliver", collector.url], timeout: 120)
        #expect(flush.status == 0, "\(flush.stderr)")
        #expect(flush.stderr.contains("delivered \(2 * Self.results) results"), "\(flush.stderr)")
        let lines = collector.stop()
        #expect(OutboxCommandTests.newResults(in: lines) == Self.results, "the second run's results are duplicates")
    }

    static func number(_ key: String, in json: String) -> Int {
        guard let range = json.range(of: "\"\(key)\":") else { return -1 }
        return Int(json[range.upperBound...].prefix { $0.isNumber }) ?? -1
    }

    /// An SQLite database of another program: a store of `anna collect` (tables that are not the outbox's).
    static func makeForeignDatabase(at path: String) throws {
        let collector = try CollectorProcess(store: path)
        collector.stop()
    }

    /// Runs `command` with `/bin/sh -c`.
    static func shell(_ command: String) async throws -> ChildProcess.Output {
        try await ChildProcess.run(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", command])
    }
}
