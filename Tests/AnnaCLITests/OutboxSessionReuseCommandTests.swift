import AnnaTestSupport
import Foundation
import Testing

/// `anna run --outbox FILE --session NAME` twice: the second run says once that it repeats
/// the first run's message IDs, and keeps its results and its exit status.
@Suite("anna run --outbox with a reused --session", .timeLimit(.minutes(2)))
struct OutboxSessionReuseCommandTests {
    static let demo = RepositoryFixtures.demo
    var session: String { Self.demo.appendingPathComponent("session.ndjson").path }
    var module: String { Self.demo.appendingPathComponent("module").path }

    @Test("a second run under the same session name says once that its message IDs repeat")
    func secondRunReportsTheReusedSession() async throws {
        let workspace = try Workspace()
        let outbox = workspace.file("outbox.sqlite")
        let arguments = ["run", "--events", session, "--module", module, "--outbox", outbox, "--session", "main"]
        let first = try await AnnaProcess.run(arguments, timeout: 120)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!first.stderr.contains("already has"), "\(first.stderr)")
        let count = first.stdoutLines.count
        #expect(count > 0)

        let second = try await AnnaProcess.run(arguments, timeout: 120)
        #expect(second.status == 0, "\(second.stderr)")
        let reports = second.stderrLines.filter { $0.contains("session 'main' already has") }
        #expect(
            reports == [
                "outbox \(outbox): session 'main' already has \(count) results in this file from an earlier run (main#0 to main#\(count - 1), delivered or not): this run numbers its results from main#0 again, repeating their message IDs, so a collector that drops duplicates keeps only this run's results from main#\(count) on; give each run its own session (Outbox.newSession(), the default; anna run without --session) unless this is a replay of the same session"
            ], "\(second.stderr)")
        #expect(second.stderr.contains("\(2 * count) results waiting (session main)"), "\(second.stderr)")

        // A run under a session of its own says nothing of the kind.
        let fresh = try await AnnaProcess.run(["run", "--events", session, "--module", module, "--outbox", outbox], timeout: 120)
        #expect(fresh.status == 0)
        #expect(!fresh.stderr.contains("already has"), "\(fresh.stderr)")
    }
}
