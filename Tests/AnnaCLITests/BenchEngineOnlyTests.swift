import AnnaTestSupport
import Foundation
import Testing

/// `anna-bench measure throughput --engine-only`: W1's JavaScript driven from JavaScript in
/// the embedded engine, the floor W1's host path is measured against.
@Suite("anna-bench's engine-only measurement", .timeLimit(.minutes(2)))
struct BenchEngineOnlyTests {
    /// The repository, where anna-bench finds `Benchmarks/node/w1-mix.js`.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func bench(_ arguments: [String], in folder: URL = repository) async throws -> ChildProcess.Output {
        try await ChildProcess.run(
            executable: BuildProducts.executable("anna-bench"), arguments: ["measure", "throughput"] + arguments,
            currentDirectory: folder, timeout: 100)
    }

    @Test("W1's tasks run on the bundled core and give the results W1's mix implies")
    func runsW1sMix() async throws {
        let output = try await bench(["--engine-only", "--events", "2002", "--warmup", "10", "--screens", "3"])
        #expect(output.status == 0, "\(output.stderr)")
        let line = try #require(output.stdoutLines.last)
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        // Events 0…2001: 501 did-select (k mod 4 = 0: 0…2000) and 500 ana-updated (k mod 4 = 2: 2…1998).
        #expect(figures["results"] as? Double == 1001)
        #expect(figures["events"] as? Double == 2002)
        #expect(figures["nodes"] as? Double == 68)
        #expect((figures["cpuSeconds"] as? Double ?? 0) > 0)
    }

    @Test("options of the host path are refused, and a missing driver is said with what to do")
    func refusals() async throws {
        let outbox = try await bench(["--engine-only", "--outbox"])
        #expect(outbox.status != 0)
        #expect(outbox.stderr.contains("--engine-only runs W1's tasks with no host path, so it does not take --outbox."))
        let tasks = try await bench(["--engine-only", "--tasks", "scale"])
        #expect(tasks.status != 0)
        #expect(tasks.stderr.contains("does not take --tasks scale"))
        let elsewhere = try await bench(["--engine-only", "--events", "10"], in: FileManager.default.temporaryDirectory)
        #expect(elsewhere.status != 0)
        #expect(elsewhere.stderr.contains("w1-mix.js"))
        #expect(elsewhere.stderr.contains("run anna-bench from the repository's root"))
    }
}
