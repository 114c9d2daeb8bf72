import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@Suite("anna report and anna inspect on the command line", .timeLimit(.minutes(2)))
struct InspectReportCommandTests {
    let demo = RepositoryFixtures.demo
    var session: String { demo.appendingPathComponent("session.ndjson").path }
    var module: String { demo.appendingPathComponent("module").path }

    @Test("anna report writes one self-contained file with the session's data and the trace check")
    func report() async throws {
        let folder = try TemporaryFolder()
        let output = try await AnnaProcess.run(
            [
                "report", "--events", session, "--module", module, "-o", folder.file("r.html"), "--expect",
                demo.appendingPathComponent("session.trace.json").path,
            ])
        #expect(output.status == 0)
        #expect(output.stderrLines == ["anna report: wrote \(folder.file("r.html")) (5413 lines)"])
        #expect(output.stdoutLines.last == "3 passed, 0 failed")
        let html = try folder.read("r.html")
        #expect(!html.contains("src=\"inspector.js\"") && !html.contains("href=\"inspector.css\""))  // inlined
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"))
        let start = try #require(html.range(of: "<script type=\"application/json\" id=\"anna-report-data\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let data = try JSONValue(parsing: String(html[start.upperBound..<end.lowerBound]))
        #expect(data["results"]?.arrayValue?.count == 500)
        #expect(data["stats"]?["results"] == 1209)
        #expect(data["state"]?["playback"]?["line"] == 5413)
        #expect(data["tree"]?["root"]?["children"]?[0]?["name"] == "home")
        #expect(data["trace"]?.stringValue?.hasSuffix("3 passed, 0 failed") == true)
        #expect(data["timeline"]?["unit"] == "line")
    }

    @Test("a failing trace makes anna report exit 1, after writing the report")
    func failingTrace() async throws {
        let folder = try TemporaryFolder(["t.json": #"{"name": "never", "items": [{"event": "no such result"}]}"#])
        let output = try await AnnaProcess.run([
            "report", "--events", session, "--module", module, "-o", folder.file("r.html"), "--expect", folder.file("t.json"),
        ])
        #expect(output.status == 1)
        #expect(output.stdout.contains("FAIL never"))
        #expect(try folder.read("r.html").contains("FAIL never"))
    }

    @Test("anna report reads trace files as anna trace does: an unknown key is a usage error at its line")
    func traceFileMistakes() async throws {
        let folder = try TemporaryFolder(["t.json": "{\n  \"name\": \"n\",\n  \"enforceOrdr\": true,\n  \"items\": []\n}\n"])
        let output = try await AnnaProcess.run([
            "report", "--events", session, "--module", module, "-o", folder.file("r.html"), "--expect", folder.file("t.json"),
        ])
        #expect(output.status == 64)
        #expect(
            output.stderrLines == [
                "\(folder.file("t.json")):3: unknown key 'enforceOrdr' in trace 'n'; did you mean 'enforceOrder'? (a trace has name, items, match, enforceOrder, allowDuplicates)"
            ])
    }

    @Test("missing input and a bind beyond loopback without a token are refused with what to do")
    func refusals() async throws {
        let missing = try await AnnaProcess.run(["report", "--events", "/nonexistent.ndjson", "--module", module, "-o", "/tmp/never.html"])
        #expect(missing.status == 66)
        #expect(missing.stderrLines == ["anna: no such event stream: /nonexistent.ndjson"])
        let open = try await AnnaProcess.run(["inspect", "--events", session, "--module", module, "--host", "0.0.0.0"], timeout: 20)
        #expect(open.status == 64)
        #expect(open.stderr.contains("listening on 0.0.0.0 (beyond 127.0.0.1) needs --token T"))
        for host in ["127.0.0.1", "0.0.0.0"] {
            let empty = try await AnnaProcess.run(["inspect", "--events", session, "--module", module, "--host", host, "--token", ""], timeout: 20)
            #expect(empty.status == 64)
            #expect(empty.stderr.contains("--token is empty: give a non-empty token"))
        }
        let rebound = try await AnnaProcess.run(
            ["inspect", "--events", session, "--module", module, "--host", "127.0.0.1.nip.io"], timeout: 20)
        #expect(rebound.status == 64)
        #expect(rebound.stderr.contains("listening on 127.0.0.1.nip.io (beyond 127.0.0.1) needs --token T"))
    }

    @Test("anna inspect following a file truncated in place says so once on standard error and reads it from its start")
    func followTruncated() async throws {
        let folder = try TemporaryFolder()
        try folder.write("s.ndjson", try String(contentsOfFile: session, encoding: .utf8))
        let process = Process()
        process.executableURL = AnnaProcess.executable
        process.arguments = ["inspect", "--events", folder.file("s.ndjson"), "--module", module, "--port", "0"]
        let errors = Pipe()
        process.standardOutput = Pipe()
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let serving = try await Self.read(errors, until: "(Ctrl-C stops)")
        #expect(serving.contains("anna inspect: serving \(folder.file("s.ndjson"))"))
        try await Task.sleep(for: .milliseconds(500))  // it reads the 5,413 lines and reaches the end
        let handle = try #require(FileHandle(forWritingAtPath: folder.file("s.ndjson")))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(#"{"op":"register","id":1,"parent":null,"name":"__root__"}"#.utf8 + [0x0A]))
        try handle.close()
        let said = try await Self.read(errors, until: "from its start")
        #expect(said.hasSuffix("anna inspect: \(folder.file("s.ndjson")) was truncated; reading from its start"))
        process.terminate()
        process.waitUntilExit()
        let rest = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!rest.contains("truncated"))  // said once
    }

    /// Reads `pipe` (on a thread of its own) until what was read contains `marker` or 20 s pass.
    static func read(_ pipe: Pipe, until marker: String) async throws -> String {
        try await onOwnThread {
            var text = ""
            let deadline = Date().addingTimeInterval(20)
            while !text.contains(marker), Date() < deadline {
                let data = pipe.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            return text.trimmingCharacters(in: .newlines)
        }
    }
}
