import AnnaTestSupport
import Foundation
import Testing

/// `anna run` with destinations: a refused key said in one closing line, several destinations
/// from a file each with its own queue, and what `anna outbox stats` shows of them.
@Suite("anna run with destinations", .timeLimit(.minutes(3)))
struct DestinationCommandTests {
    var session: String { OutboxCommandTests.demo.appendingPathComponent("session.ndjson").path }
    var module: String { OutboxCommandTests.demo.appendingPathComponent("module").path }
    var resultCount: Int {
        get throws { try OutboxCommandTests().expectedResults.split(separator: "\n").count }
    }

    @Test("a refused key stops delivery at once; the run exits 1 with one line that says so, once")
    func aRefusedKeyIsSaidOnce() async throws {
        let workspace = try Workspace()
        let collector = try CollectorProcess(
            store: workspace.file("collected.sqlite"), extra: ["--fail-status", "401", "--fail-count", "1000"])
        let outbox = workspace.file("outbox.sqlite")
        let run = try await AnnaProcess.run(
            ["run", "--events", session, "--module", module, "--outbox", outbox, "--deliver", collector.url, "--drain-timeout", "30"],
            timeout: 120)
        let lines = collector.stop()
        #expect(run.status == 1)
        let count = try resultCount
        let last = run.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            last.contains("\(count) results not delivered to \(collector.url): 401 Unauthorized from \(collector.url): check --api-key"), "\(last)")
        // (": 401 " and not "401": the collector's port may hold those digits.)
        #expect(run.stderr.components(separatedBy: ": 401 ").count - 1 == 1, "the key is said once: \(run.stderr)")
        // One request; two when the end of the stream cancels the first before its answer is read.
        #expect((1...2).contains(lines.filter { $0.hasSuffix(": 401 (injected)") }.count), "not one per result: \(lines)")
        let stats = try await AnnaInProcess.run(["outbox", "stats", outbox, "--json"])
        #expect(stats.stdout.contains(#""pending":\#(count)"#), "\(stats.stdout)")
    }

    @Test("two destinations from a file: the healthy one gets every result while the other fails; stats show each queue")
    func oneFailingDestinationDoesNotHoldUpAnother() async throws {
        let workspace = try Workspace()
        let good = try CollectorProcess(store: workspace.file("good.sqlite"))
        let bad = try CollectorProcess(store: workspace.file("bad.sqlite"), extra: ["--fail-status", "503", "--fail-count", "100000"])
        let file = workspace.file("destinations.json")
        try #"[{"name":"good","url":"\#(good.url)"},{"name":"bad","url":"\#(bad.url)","maximumBackoff":0.05}]"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let outbox = workspace.file("outbox.sqlite")
        // The drain waits its whole timeout for the failing destination; 20 s leaves the healthy one room on a
        // loaded machine (in the parallel run, 3 s delivered half of its results).
        let run = try await AnnaProcess.run(
            ["run", "--events", session, "--module", module, "--outbox", outbox, "--destinations", file, "--drain-timeout", "20"],
            timeout: 120)
        let count = try resultCount
        #expect(OutboxCommandTests.newResults(in: good.stop()) == count)
        _ = bad.stop()
        #expect(run.status == 1)
        let last = run.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.contains("\(count) results not delivered to bad within --drain-timeout 20.0 s (503 from \(bad.url))"), "\(last)")
        #expect(!last.contains("good"), "\(last)")
        let stats = try await AnnaInProcess.run(["outbox", "stats", outbox])
        #expect(stats.stdout.contains("destination bad: \(count) pending, 0 in flight, 0 dead letters"), "\(stats.stdout)")
        #expect(!stats.stdout.contains("destination good"), "the good queue is empty: \(stats.stdout)")
    }

    @Test("a destinations file with an unknown key is refused, naming the key and the destination")
    func aWrongDestinationsFileIsRefused() async throws {
        let workspace = try Workspace()
        let file = workspace.file("destinations.json")
        try #"[{"name":"a","url":"http://127.0.0.1:1/batch","formt":"segment"}]"#.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await AnnaInProcess.run(
            ["run", "--events", session, "--module", module, "--outbox", workspace.file("o.sqlite"), "--destinations", file])
        #expect(run.status == 64)
        #expect(run.stderr.contains("destination 1: unknown key \"formt\""), "\(run.stderr)")
    }

    @Test("--format segment without --api-key is a usage error")
    func aVendorFormatNeedsAKey() async throws {
        let workspace = try Workspace()
        let run = try await AnnaInProcess.run(
            [
                "run", "--events", session, "--module", module, "--outbox", workspace.file("o.sqlite"), "--deliver",
                "http://127.0.0.1:1/v1/batch", "--format", "segment",
            ])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--format segment needs --api-key KEY"), "\(run.stderr)")
    }
}
