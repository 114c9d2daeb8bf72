import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// `anna replay`: many sessions, reused engines without leaks, shards, the journal and `--resume`.
@Suite("anna replay")
struct ReplayCommandTests {
    /// A task folder whose every channel of state could leak from one session to the next:
    /// a module-level counter, a required helper's counter, a global, a method added to a
    /// built-in prototype, a built-in replaced, and the module's own function (reused, with
    /// its compiled code, from session to session).
    static let leakyTasks: [String: String] = [
        "task/index.js": """
        let counter = 0;
        const helper = require('./helper');
        globalThis.loads = (globalThis.loads || 0) + 1;
        Array.prototype.leaked = (Array.prototype.leaked || 0) + 1;
        const original = Math.max;
        Math.max = function () { return original.apply(Math, arguments) + 1000; };
        const wrapper = arguments.callee;
        wrapper.runs = (wrapper.runs || 0) + 1;
        match('screen/tap', (n) => ({ counter: ++counter, helper: helper.next(), loads: globalThis.loads,
          leaked: Array.prototype.leaked, max: Math.max(1, 2), runs: wrapper.runs || 0, n: n.latestEvent().attributes.n }));
        """,
        "task/helper.js": "let calls = 0;\nexports.next = () => ++calls;\n",
    ]

    /// A session of `taps` tap events on one screen.
    static func session(taps: Int) -> String {
        var lines = [
            #"{"op":"register","id":1,"parent":null,"name":"__root__"}"#, #"{"op":"register","id":2,"parent":1,"name":"screen"}"#,
        ]
        for n in 0..<taps { lines.append(#"{"op":"event","id":2,"name":"tap","properties":{"n":\#(n)}}"#) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A workspace with the leaky tasks and `count` sessions (`s00` … of 1 … taps).
    static func workspace(sessions count: Int, taps: (Int) -> Int = { $0 + 1 }) throws -> Workspace {
        var files = leakyTasks
        for index in 0..<count { files["sessions/s\(String(format: "%02d", index)).ndjson"] = session(taps: taps(index)) }
        return try Workspace(files)
    }

    /// What `anna run` prints for one session alone.
    static func runAlone(_ session: String, tasks: String) async throws -> String {
        let output = try await AnnaProcess.run(["run", "--events", session, "--tasks", tasks])
        #expect(output.status == 0, "\(output.stderr)")
        return output.stdout
    }

    @Test("an engine reused for every session gives each the output of `anna run` on it alone")
    func reusedEngineLeavesNothing() async throws {
        let workspace = try Self.workspace(sessions: 5)
        let run = try await AnnaProcess.run(
            ["replay", workspace.file("sessions"), "--tasks", workspace.file("task"), "--out", workspace.file("out"), "--jobs", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        for index in 0..<5 {
            let name = "s0\(index)"
            let alone = try await Self.runAlone(workspace.file("sessions/\(name).ndjson"), tasks: workspace.file("task"))
            #expect(try workspace.read("out/\(name).ndjson") == alone)
            #expect(alone.contains(#""loads":1,"leaked":1,"max":2,"runs":0"#))
            #expect(alone.split(separator: "\n").count == index + 1)
        }
        // The same with a fresh engine per session.
        let fresh = try await AnnaProcess.run(
            ["replay", workspace.file("sessions"), "--tasks", workspace.file("task"), "--out", workspace.file("fresh"), "--fresh-engines"])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        for index in 0..<5 { #expect(try workspace.read("fresh/s0\(index).ndjson") == workspace.read("out/s0\(index).ndjson")) }
    }

    @Test("--meta without --out tags each line with its session; each session's lines stay together and in order")
    func metaLines() async throws {
        let workspace = try Self.workspace(sessions: 4)
        let run = try await AnnaProcess.run(["replay", workspace.file("sessions"), "--tasks", workspace.file("task"), "--meta", "--jobs", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.stdoutLines.map { try JSONValue(parsing: $0) }
        #expect(lines.count == 10)  // 1 + 2 + 3 + 4 results
        var order: [String] = []
        for line in lines {
            let session = try #require(line["session"]?.stringValue)
            if order.last != session { order.append(session) }
            #expect(line["task"]?.stringValue == "screen/tap")
        }
        #expect(order.sorted() == ["s00", "s01", "s02", "s03"])  // each block once: no interleaving
        for session in order {
            let counters = lines.filter { $0["session"]?.stringValue == session }.compactMap { $0["result"]?["counter"]?.numberValue }
            #expect(counters == (1...counters.count).map(Double.init))
        }
    }

    @Test("a malformed or timed-out session fails alone: the others are done, exit 1, the summary says why")
    func failuresAreSkipped() async throws {
        let workspace = try Self.workspace(sessions: 3)
        try workspace.write("sessions/s01.ndjson", Self.session(taps: 2) + "{not json\n")
        try workspace.write(
            "slow/task/index.js", "match('screen/tap', () => { const end = Date.now() + 40; while (Date.now() < end) {} return 1; });\n")
        try workspace.write("slow/sessions/long.ndjson", Self.session(taps: 30))
        let run = try await AnnaProcess.run([
            "replay", workspace.file("sessions"), "--tasks", workspace.file("task"), "--out", workspace.file("out"),
            "--summary-json", workspace.file("summary.json"),
        ])
        #expect(run.status == 1)
        #expect(run.stderr.contains("s01.ndjson:5: invalid JSON"))
        #expect(run.stderr.contains("anna: failed: s01 (\(workspace.file("sessions/s01.ndjson"))): malformed line 5"))
        #expect(run.stderr.contains("anna: 3 sessions: 2 done, 1 failed, 0 skipped"))
        #expect(!FileManager.default.fileExists(atPath: workspace.file("out/s01.ndjson")))
        #expect(try workspace.read("out/s02.ndjson").split(separator: "\n").count == 3)
        let summary = try JSONValue(parsing: try workspace.read("summary.json"))
        #expect(summary["done"] == ["s00", "s02"])
        #expect(summary["failed"]?[0]?["session"] == "s01")
        #expect(summary["engineOptions"] == ["useFTLJIT=false", "numberOfGCMarkers=1"])

        let slow = try await AnnaProcess.run([
            "replay", workspace.file("slow/sessions"), "--tasks", workspace.file("slow/task"), "--out", workspace.file("slow/out"),
            "--session-timeout", "0.2",
        ])
        #expect(slow.status == 1)
        #expect(slow.stderr.contains("long (\(workspace.file("slow/sessions/long.ndjson"))) failed: timed out after"))
    }

    @Test("the engine is tuned for many sessions, except where the environment chose")
    func engineOptions() async throws {
        let workspace = try Self.workspace(sessions: 1)
        var environment = ProcessInfo.processInfo.environment
        environment["JSC_useFTLJIT"] = "true"
        let run = try await AnnaProcess.run(
            [
                "replay", workspace.file("sessions"), "--tasks", workspace.file("task"), "--out", workspace.file("out"),
                "--summary-json", workspace.file("summary.json"),
            ],
            environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JSONValue(parsing: try workspace.read("summary.json"))["engineOptions"] == ["numberOfGCMarkers=1"])
    }

    @Test("two session files of the same name stop the run before it starts (exit 64)")
    func nameClash() async throws {
        let workspace = try Self.workspace(sessions: 1)
        try workspace.write("other/s00.ndjson", Self.session(taps: 1))
        let run = try await AnnaProcess.run([
            "replay", workspace.file("sessions"), workspace.file("other"), "--tasks", workspace.file("task"), "--out", workspace.file("out"),
        ])
        #expect(run.status == 64)
        #expect(run.stderr.contains("2 files have the session name 's00'"))
        #expect(!FileManager.default.fileExists(atPath: workspace.file("out")))
    }

    @Test("N shard processes of the binary together write exactly what one unsharded run writes")
    func shardsMergeToTheWhole() async throws {
        let workspace = try Self.workspace(sessions: 12, taps: { $0 % 4 + 1 })
        try workspace.write("manifest.txt", (0..<12).map { "sessions/s\(String(format: "%02d", $0)).ndjson" }.joined(separator: "\n") + "\n")
        let whole = try await AnnaProcess.run([
            "replay", "--manifest", workspace.file("manifest.txt"), "--tasks", workspace.file("task"), "--out", workspace.file("whole"),
        ])
        #expect(whole.status == 0, "\(whole.stderr)")
        let shards = 3
        var merged: [String: String] = [:]
        for index in 0..<shards {
            let folder = workspace.file("shard\(index)")
            let arguments = ["replay", "--manifest", workspace.file("manifest.txt"), "--tasks", workspace.file("task"), "--out", folder]
            // Shard 0 through the Kubernetes variable, the others by --shard.
            let run =
                index == 0
                ? try await AnnaProcess.run(
                    arguments + ["--shard-from-env", "\(shards)"],
                    environment: ProcessInfo.processInfo.environment.merging(["JOB_COMPLETION_INDEX": "0"]) { $1 })
                : try await AnnaProcess.run(arguments + ["--shard", "\(index)/\(shards)"])
            #expect(run.status == 0, "\(run.stderr)")
            for name in try Self.outputs(in: folder) {
                #expect(merged[name] == nil, "\(name) replayed by two shards")
                merged[name] = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            }
        }
        let expected = try Dictionary(
            uniqueKeysWithValues: Self.outputs(in: workspace.file("whole")).map {
                ($0, try String(contentsOfFile: workspace.file("whole/" + $0), encoding: .utf8))
            })
        #expect(expected.count == 12)
        #expect(merged == expected)
    }

    @Test("--resume after a SIGKILL midway: finished sessions are not replayed again, and the outputs equal an uninterrupted run's")
    func resumeAfterKill() async throws {
        let count = 40
        let workspace = try Self.workspace(sessions: count, taps: { _ in 3_000 })
        let common = [workspace.file("sessions"), "--tasks", workspace.file("task"), "--jobs", "1"]
        let uninterrupted = try await AnnaProcess.run(["replay"] + common + ["--out", workspace.file("whole")])
        #expect(uninterrupted.status == 0, "\(uninterrupted.stderr)")

        let journal = workspace.file("out/.anna-replay-journal.ndjson")
        let process = Process()
        process.executableURL = AnnaProcess.executable
        process.arguments = ["replay"] + common + ["--out", workspace.file("out")]
        process.standardError = FileHandle.nullDevice
        // Started and watched on one thread of its own: no wait for a busy test pool between.
        try await onOwnThread {
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while Self.lines(of: journal).count < 3, process.isRunning, Date() < deadline { usleep(2_000) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        #expect(process.terminationReason == .uncaughtSignal)
        let finished = Self.lines(of: journal)
        #expect(finished.count >= 3 && finished.count < count, "the kill came after \(finished.count) sessions")

        // One finished output cut short: --resume replays it again.
        let cut = try #require(try JSONValue(parsing: finished[0])["session"]?.stringValue)
        let cutText = try workspace.read("out/\(cut).ndjson")
        try workspace.write("out/\(cut).ndjson", String(cutText.prefix(cutText.count / 2)))

        let resumed = try await AnnaProcess.run(
            ["replay"] + common + ["--out", workspace.file("out"), "--resume", "--summary-json", workspace.file("summary.json")])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("anna: \(cut): its output"))
        let summary = try JSONValue(parsing: try workspace.read("summary.json"))
        #expect(summary["skipped"]?.arrayValue?.count == finished.count - 1)
        #expect(summary["done"]?.arrayValue?.count == count - finished.count + 1)
        // Every session in the journal once, but the one cut short twice: nothing else replayed again.
        let sessions = try Self.lines(of: journal).map { try #require(try JSONValue(parsing: $0)["session"]?.stringValue) }
        #expect(sessions.count == count + 1)
        #expect(Set(sessions).count == count)
        #expect(sessions.filter { $0 == cut }.count == 2)
        for name in try Self.outputs(in: workspace.file("whole")) {
            #expect(try workspace.read("out/" + name) == workspace.read("whole/" + name), "\(name)")
        }
        #expect(try Self.outputs(in: workspace.file("out")).count == count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.file("out")).filter { $0.hasSuffix(".partial") }.isEmpty)
    }

    /// The `.ndjson` outputs in `folder` (not the journal), sorted.
    static func outputs(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ndjson") && !$0.hasPrefix(".") }.sorted()
    }

    /// The complete lines of `path` (none when it does not exist).
    static func lines(of path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(text.hasSuffix("\n") ? 0 : 1).map(String.init)
    }
}
