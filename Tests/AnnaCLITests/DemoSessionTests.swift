import AnnaTestSupport
import Foundation
import Testing

/// The bundled demo: its recorded session, expected results and trace, and the recorder.
@Suite("The demo session and the Manager's recorder", .timeLimit(.minutes(3)))
struct DemoSessionTests {
    static let demo = RepositoryFixtures.demo
    var module: String { Self.demo.appendingPathComponent("module").path }

    @Test("replaying the committed session gives exactly the committed results")
    func goldenResults() async throws {
        let output = try await AnnaInProcess.run(["run", "--events", Self.demo.appendingPathComponent("session.ndjson").path, "--module", module])
        let expected = try String(contentsOf: Self.demo.appendingPathComponent("expected-results.ndjson"), encoding: .utf8)
        #expect(output.status == 0)
        #expect(output.stderr == "")
        #expect(output.stdoutLines.count > 1000)
        #expect(output.stdout == expected)
    }

    @Test("the session is several thousand operations and passes its trace file")
    func traceFile() async throws {
        let session = try String(contentsOf: Self.demo.appendingPathComponent("session.ndjson"), encoding: .utf8)
        #expect(session.split(separator: "\n").count > 3000)
        let output = try await AnnaInProcess.run([
            "trace", "--events", Self.demo.appendingPathComponent("session.ndjson").path, "--module", module,
            "--expect", Self.demo.appendingPathComponent("session.trace.json").path,
        ])
        #expect(output.status == 0)
        #expect(output.stdoutLines.last == "3 passed, 0 failed")
    }

    @Test("a session recorded by the Manager replays through anna with the same results")
    func recorderReplays() async throws {
        let workspace = try Workspace()
        let demo = Process()
        demo.executableURL = BuildProducts.executable("anna-demo")
        demo.arguments = ["--module", module, "--visits", "6", "--record", workspace.file("recorded.ndjson")]
        let pipe = Pipe()
        demo.standardOutput = pipe
        try demo.run()
        let live = try await onOwnThread {
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            demo.waitUntilExit()
            return text
        }
        #expect(demo.terminationStatus == 0)
        let recording = try workspace.read("recorded.ndjson")
        #expect(recording.hasPrefix(#"{"op":"version","version":1}"#))
        let replay = try await AnnaInProcess.run(["run", "--events", workspace.file("recorded.ndjson"), "--module", module])
        #expect(replay.status == 0)
        #expect(!live.isEmpty)
        #expect(replay.stdout == live)
    }
}
