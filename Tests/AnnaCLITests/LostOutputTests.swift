import AnnaTestSupport
import Foundation
import Testing

/// Outputs that cannot be written, and outputs that would replace the recording being read:
/// said, and never a crash or a success.
@Suite("Outputs that are lost or would replace the recording", .timeLimit(.minutes(2)))
struct LostOutputTests {
    /// Runs `anna arguments…` through the shell, with `redirect` (`> /dev/full`) applied.
    private func anna(_ arguments: [String], redirect: String) async throws -> ChildProcess.Output {
        try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "exec \"$0\" \"$@\" \(redirect)", AnnaProcess.executable.path] + arguments, timeout: 60)
    }

    @Test("results that cannot reach standard output end the run with exit 74, said once")
    func runResultsToAFullDisk() async throws {
        let workspace = try Workspace.shop()
        let output = try await anna(
            ["run", "--events", workspace.file("session.ndjson"), "--module", workspace.file("module")], redirect: "> /dev/full")
        #expect(output.status == 74, "\(output.stderr)")
        #expect(!output.signalled)
        #expect(output.stderrLines.filter { $0.contains("cannot write") }.count == 1, "\(output.stderr)")
        #expect(output.stderr.contains("anna: cannot write the results to standard output: No space left on device"), "\(output.stderr)")
    }

    @Test("a report that cannot reach standard output is said, not a crash")
    func checkToAFullDisk() async throws {
        let workspace = try Workspace.shop()
        let output = try await anna(["check", "--module", workspace.file("module")], redirect: "> /dev/full")
        #expect(output.status == 74, "\(output.stderr)")
        #expect(!output.signalled)
        #expect(output.stderr.contains("anna: cannot write to standard output: No space left on device; output is lost"), "\(output.stderr)")
    }

    @Test("standard error that cannot be written keeps the exit status, without a crash")
    func errorsToAFullDisk() async throws {
        let workspace = try Workspace.shop()
        try workspace.write("broken.ndjson", try workspace.read("session.ndjson") + "{\"op\":\n")
        let output = try await anna(
            ["run", "--events", workspace.file("broken.ndjson"), "--module", workspace.file("module")], redirect: "2> /dev/full")
        #expect(!output.signalled)
        #expect(output.status == 65)
    }

    @Test(
        "an output that is the event stream is refused before anything is written",
        arguments: [["run", "--console"], ["run", "--coverage-file"], ["trace", "--junit"]])
    func outputOverTheStream(option: [String]) async throws {
        let workspace = try Workspace.shop()
        let recording = try workspace.read("session.ndjson")
        var arguments = [option[0], "--events", workspace.file("session.ndjson"), "--module", workspace.file("module")]
        if option[0] == "trace" {
            try workspace.write("expect.json", "[]")
            arguments += ["--expect", workspace.file("expect.json")]
        }
        // Spelt another way than --events: the file is the same.
        let output = try await AnnaProcess.run(arguments + [option[1], workspace.path + "/./session.ndjson"])
        #expect(output.status == 64, "\(output.stderr)")
        #expect(output.stderr.contains("is the event stream being read"), "\(output.stderr)")
        #expect(try workspace.read("session.ndjson") == recording)
    }
}
