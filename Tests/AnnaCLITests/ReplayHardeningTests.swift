import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// `anna replay` against hostile inputs and arguments: outputs that are sessions, FIFOs,
/// lines without end, failures that come back on every `--resume`, damaged journals,
/// unbounded numbers.
@Suite("anna replay hardening")
struct ReplayHardeningTests {
    typealias Sessions = ReplayCommandTests

    /// `anna replay arguments… --tasks task`, stopped after a minute at most.
    static func replay(_ workspace: Workspace, _ arguments: [String], environment: [String: String]? = nil) async throws -> AnnaProcess.Output {
        let output = try await AnnaProcess.run(
            ["replay"] + arguments + ["--tasks", workspace.file("task")], environment: environment, timeout: 60)
        #expect(!output.timedOut, "anna replay hung: \(output.stderr)")
        return output
    }

    @Test("an output that is a session being replayed stops the run before it writes anything (exit 64), however it is spelt")
    func outputsNeverReplaceSessions() async throws {
        let workspace = try Sessions.workspace(sessions: 2)
        let original = try workspace.read("sessions/s00.ndjson")
        try FileManager.default.createSymbolicLink(atPath: workspace.file("alias"), withDestinationPath: workspace.file("sessions"))
        let cases: [(arguments: [String], option: String)] = [
            ([workspace.file("sessions"), "--out", workspace.file("sessions")], "--out"),
            ([workspace.file("sessions"), "--out", workspace.file("alias")], "--out"),
            ([workspace.file("sessions"), "--out", workspace.file("sessions/../sessions/")], "--out"),
            ([workspace.file("sessions"), "--meta", "--journal", workspace.file("alias/s00.ndjson")], "--journal"),
            (
                [workspace.file("sessions"), "--out", workspace.file("out"), "--summary-json", workspace.file("sessions/s01.ndjson")],
                "--summary-json"
            ),
            ([workspace.file("sessions"), "--out", workspace.file("out"), "--console", workspace.file("alias/s00.ndjson")], "--console"),
        ]
        for (arguments, option) in cases {
            let run = try await Self.replay(workspace, arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("anna: \(option) would write "), "\(run.stderr)")
            #expect(run.stderr.contains("which is the session s0"), "\(run.stderr)")
            #expect(try workspace.read("sessions/s00.ndjson") == original)
            #expect(try workspace.read("sessions/s01.ndjson") == Sessions.session(taps: 2))
            #expect(!FileManager.default.fileExists(atPath: workspace.file("out")), "nothing is created before the check")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.file("sessions")).sorted() == ["s00.ndjson", "s01.ndjson"])
    }

    @Test("a FIFO among the sessions fails alone, at once: the sessions after it run")
    func fifoFailsAlone() async throws {
        let workspace = try Sessions.workspace(sessions: 3)
        try FileManager.default.removeItem(atPath: workspace.file("sessions/s01.ndjson"))
        #expect(mkfifo(workspace.file("sessions/s01.ndjson"), 0o644) == 0)
        let run = try await Self.replay(
            workspace, [workspace.file("sessions"), "--out", workspace.file("out"), "--jobs", "1", "--session-timeout", "30"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "anna: failed: s01 (\(workspace.file("sessions/s01.ndjson"))): a FIFO, not a regular file (only regular files are sessions)"),
            "\(run.stderr)")
        #expect(run.stderr.contains("anna: 3 sessions: 2 done, 1 failed, 0 skipped"))
        #expect(try workspace.read("out/s02.ndjson").split(separator: "\n").count == 3)
    }

    /// A workspace whose session `s01` holds, after two lines, `length` NUL bytes and no line break.
    static func endlessLine(length: Int) throws -> Workspace {
        let workspace = try Sessions.workspace(sessions: 3)
        let head = Array(Sessions.session(taps: 0).utf8)
        try Data(head + [UInt8](repeating: 0, count: length)).write(to: URL(fileURLWithPath: workspace.file("sessions/s01.ndjson")))
        return workspace
    }

    @Test("a line past the maximum line length fails its session alone; a line of exactly the maximum is read")
    func overlongLineFailsItsSession() async throws {
        let workspace = try Self.endlessLine(length: 5_000)
        // s02: a tap line padded to exactly 1,000 bytes.
        let prefix = #"{"op":"event","id":2,"name":"tap","properties":{"n":0,"pad":""#
        let suffix = #""}}"#
        let padded = prefix + String(repeating: "x", count: 1_000 - prefix.utf8.count - suffix.utf8.count) + suffix
        #expect(padded.utf8.count == 1_000)
        try workspace.write("sessions/s02.ndjson", Sessions.session(taps: 0) + padded + "\n")
        var environment = ProcessInfo.processInfo.environment
        environment["ANNA_MAX_LINE_BYTES"] = "1000"
        let run = try await Self.replay(
            workspace, [workspace.file("sessions"), "--out", workspace.file("out"), "--jobs", "1"], environment: environment)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("anna: failed: s01 (\(workspace.file("sessions/s01.ndjson"))): line 3: line longer than 1000 bytes"))
        #expect(run.stderr.contains("anna: 3 sessions: 2 done, 1 failed, 0 skipped"))
        #expect(!FileManager.default.fileExists(atPath: workspace.file("out/s01.ndjson")))
        #expect(try workspace.read("out/s02.ndjson").split(separator: "\n").count == 1)

        environment["ANNA_MAX_LINE_BYTES"] = "lots"
        let misspelt = try await Self.replay(workspace, [workspace.file("sessions"), "--out", workspace.file("out2")], environment: environment)
        #expect(misspelt.stderr.components(separatedBy: "$ANNA_MAX_LINE_BYTES is 'lots', not a number of bytes from 1 to 1099511627776").count == 2)
    }

    @Test("anna run stops at a line past the maximum line length, naming FILE:LINE, the results before it printed")
    func overlongLineStopsRun() async throws {
        let workspace = try Sessions.workspace(sessions: 1)
        let head = Array(Sessions.session(taps: 1).utf8)
        try Data(head + [UInt8](repeating: 0, count: 5_000)).write(to: URL(fileURLWithPath: workspace.file("long.ndjson")))
        var environment = ProcessInfo.processInfo.environment
        environment["ANNA_MAX_LINE_BYTES"] = "1000"
        let run = try await AnnaProcess.run(
            ["run", "--events", workspace.file("long.ndjson"), "--tasks", workspace.file("task")], environment: environment, timeout: 60)
        #expect(!run.signalled)
        #expect(run.stderr.contains("\(workspace.file("long.ndjson")):4: line longer than 1000 bytes, the maximum line length"), "\(run.stderr)")
        #expect(run.stdoutLines.count == 1)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "line longer than").count == 2, "said once: \(run.stderr)")
    }

    @Test("--resume counts a recorded failure again without replaying it; --max-failed lets the shard succeed; --retry-failed replays it")
    func resumeSettlesFailures() async throws {
        let workspace = try Sessions.workspace(sessions: 3)
        try workspace.write("sessions/s01.ndjson", Sessions.session(taps: 2) + "{not json\n")
        let journal = workspace.file("out/.anna-replay-journal.ndjson")
        let common = [workspace.file("sessions"), "--out", workspace.file("out"), "--jobs", "1"]

        let first = try await Self.replay(workspace, common)
        #expect(first.status == 1)
        let recorded = try ReplayCommandTests.lines(of: journal).map { try JSONValue(parsing: $0) }
        #expect(recorded.count == 3)
        let failure = try #require(recorded.first { $0["session"] == "s01" })
        #expect(failure["status"] == "failed")
        #expect(failure["reason"]?.stringValue?.hasPrefix("malformed line 5") == true)

        let resumed = try await Self.replay(workspace, common + ["--resume", "--summary-json", workspace.file("summary.json")])
        #expect(resumed.status == 1)
        #expect(!resumed.stderr.contains("invalid JSON"), "s01 was replayed again: \(resumed.stderr)")
        #expect(resumed.stderr.contains("anna: 3 sessions: 0 done, 1 failed (1 in an earlier run), 2 skipped"))
        #expect(resumed.stderr.contains("anna: failed: s01 (\(workspace.file("sessions/s01.ndjson"))): malformed line 5"))
        #expect(resumed.stderr.contains("(in an earlier run; --retry-failed replays it)"))
        #expect(resumed.stderr.contains("anna: 1 session failed; failing the run (--max-failed N accepts up to N)"))
        #expect(ReplayCommandTests.lines(of: journal).count == 3, "nothing replayed, nothing appended")
        let summary = try JSONValue(parsing: try workspace.read("summary.json"))
        #expect(summary["failed"]?[0]?["earlierRun"] == .bool(true))
        #expect(summary["succeeded"] == .bool(false))

        let tolerated = try await Self.replay(workspace, common + ["--resume", "--max-failed", "1"])
        #expect(tolerated.status == 0, "\(tolerated.stderr)")
        #expect(tolerated.stderr.contains("anna: failed: s01"))
        #expect(tolerated.stderr.contains("anna: 1 session failed, within --max-failed 1"))

        try workspace.write("sessions/s01.ndjson", Sessions.session(taps: 2))
        let retried = try await Self.replay(workspace, common + ["--resume", "--retry-failed"])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stderr.contains("anna: 3 sessions: 1 done, 0 failed, 2 skipped"))
        #expect(try workspace.read("out/s01.ndjson").split(separator: "\n").count == 2)

        let alone = try await Self.replay(workspace, [workspace.file("sessions"), "--meta", "--retry-failed"])
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--retry-failed goes with --resume"))
    }

    @Test("journal lines with numbers out of range or fields of the wrong type are ignored like torn lines, said once")
    func damagedJournalLinesAreIgnored() async throws {
        let workspace = try Sessions.workspace(sessions: 2)
        let out = workspace.file("out")
        let first = try await Self.replay(workspace, [workspace.file("sessions"), "--out", out])
        #expect(first.status == 0, "\(first.stderr)")
        let s00 = try workspace.read("out/s00.ndjson")
        let path = workspace.file("sessions/s00.ndjson")
        let bad = [
            #"{"session":"s00","path":"\#(path)","status":"done","lines":1e300,"outputBytes":\#(s00.utf8.count)}"#,
            #"{"session":"s00","path":"\#(path)","status":"done","lines":"3","outputBytes":\#(s00.utf8.count)}"#,
            #"{"session":"s00","path":"\#(path)","status":"done","lines":3,"outputBytes":-1e300}"#,
            #"{"session":"s00","path":"\#(path)","status":"done","seconds":"soon","outputBytes":\#(s00.utf8.count)}"#,
            #"["s00"]"#,
        ]
        try workspace.write("out/.anna-replay-journal.ndjson", bad.joined(separator: "\n") + "\n")
        let resumed = try await Self.replay(workspace, [workspace.file("sessions"), "--out", out, "--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(!resumed.signalled)
        let notes = resumed.stderrLines.filter { $0.contains("not journal records") }
        #expect(notes.count == 1)
        #expect(
            notes.first?.contains(
                "5 lines are not journal records (line 1: field 'lines' is not a whole number from 0 to 2^53; also 2, 3, 4, 5); ignored") == true)
        #expect(resumed.stderr.contains("anna: 2 sessions: 2 done, 0 failed, 0 skipped"), "the ignored lines' session is replayed again")
        #expect(try workspace.read("out/s00.ndjson") == s00)
    }

    @Test("--session-timeout refuses what is not a positive number of seconds (64); inf is no limit")
    func sessionTimeoutBounds() async throws {
        let workspace = try Sessions.workspace(sessions: 1)
        for value in ["1e300", "nan", "-1", "=-1", "0", "-inf"] {
            let option = value.hasPrefix("=") ? ["--session-timeout" + value] : ["--session-timeout", value]
            let run = try await Self.replay(workspace, [workspace.file("sessions"), "--meta"] + option)
            #expect(run.status == 64, "\(value): \(run.stderr)")
            #expect(!run.signalled)
            #expect(run.stderr.contains("--session-timeout"), "\(value): \(run.stderr)")
        }
        let unlimited = try await Self.replay(workspace, [workspace.file("sessions"), "--meta", "--session-timeout", "inf"])
        #expect(unlimited.status == 0, "\(unlimited.stderr)")
        #expect(unlimited.stdoutLines.count == 1)
    }

    @Test("anna help replay gives each default once; the summary speaks of 1 session and 1 result")
    func helpAndPlurals() async throws {
        let help = try await AnnaProcess.run(["help", "replay"])
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("--jobs <n> Sessions replayed in parallel (default: the number of CPUs). --session-timeout"), "\(text)")
        #expect(text.components(separatedBy: "(default: the number of CPUs)").count == 2)

        let workspace = try Sessions.workspace(sessions: 1)
        let run = try await Self.replay(workspace, [workspace.file("sessions"), "--meta"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("anna: 1 session: 1 done, 0 failed, 0 skipped; 3 lines, 1 result in"), "\(run.stderr)")
    }

    @Test("replay names a task file never loaded once for all sessions; --require-coverage judges the sessions together")
    func coverageAcrossSessions() async throws {
        let workspace = try LoadWarningTests.notes()
        let session = try workspace.read("session.ndjson")
        try workspace.write("sessions/a.ndjson", session)
        try workspace.write("sessions/b.ndjson", session)
        let arguments = ["replay", workspace.file("sessions"), "--module", workspace.file("module"), "--meta", "--jobs", "1"]
        let plain = try await AnnaProcess.run(arguments, timeout: 60)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderrLines.filter { $0 == LoadWarningTests.warning }.count == 1, "\(plain.stderr)")

        // A failed session too: the gaps are listed all the same, and the summary says the run failed.
        try workspace.write("sessions/c.ndjson", "{not json\n")
        let required = try await AnnaProcess.run(
            arguments + ["--require-coverage", "--max-failed", "1", "--summary-json", workspace.file("summary.json")], timeout: 60)
        #expect(required.status == 1)
        #expect(try JSONValue(parsing: try workspace.read("summary.json"))["succeeded"] == .bool(false))
        try FileManager.default.removeItem(atPath: workspace.file("sessions/c.ndjson"))
        let task = LocalPath.real(workspace.file("module/task"))
        #expect(required.stderrLines.contains("\(task)/NoteDetail.js:1: task file never loaded (no node's namespace asked for it)"))
        #expect(required.stderrLines.contains { $0.hasPrefix("\(task)/index.js:2:") && $0.hasSuffix(": task '/never' never ran") })
        #expect(required.stderrLines.last == "anna: --require-coverage: 1 task file never loaded, 1 task never ran; failing the run")

        // b loads NoteDetail.js and a runs every task of index.js: together they cover everything.
        try workspace.write("module/task/index.js", "match('/notes/ana-appeared', () => ({ event: 'screen_view' }));\n")
        try workspace.write("sessions/b.ndjson", session.replacingOccurrences(of: "NoteDetailViewController", with: "NoteDetail"))
        let covered = try await AnnaProcess.run(arguments + ["--require-coverage"], timeout: 60)
        #expect(covered.status == 0, "\(covered.stderr)")
        #expect(!covered.stderr.contains("never"), "\(covered.stderr)")
    }
}
