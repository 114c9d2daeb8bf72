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
        let output = try await AnnaInProcess.run(
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
        let output = try await AnnaInProcess.run([
            "report", "--events", session, "--module", module, "-o", folder.file("r.html"), "--expect", folder.file("t.json"),
        ])
        #expect(output.status == 1)
        #expect(output.stdout.contains("FAIL never"))
        #expect(try folder.read("r.html").contains("FAIL never"))
    }

    @Test("anna report reads trace files as anna trace does: an unknown key is a usage error at its line")
    func traceFileMistakes() async throws {
        let folder = try TemporaryFolder(["t.json": "{\n  \"name\": \"n\",\n  \"enforceOrdr\": true,\n  \"items\": []\n}\n"])
        let output = try await AnnaInProcess.run([
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
        let missing = try await AnnaInProcess.run(["report", "--events", "/nonexistent.ndjson", "--module", module, "-o", "/tmp/never.html"])
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
        let (process, errors, serving, port) = try await Self.inspect(events: folder.file("s.ndjson"), module: module)
        defer { if process.isRunning { process.terminate() } }
        #expect(serving.contains("anna inspect: serving \(folder.file("s.ndjson"))"))
        try await Self.waitForLineCount(5413, port: port)  // it has read the whole file, to its end
        let handle = try #require(FileHandle(forWritingAtPath: folder.file("s.ndjson")))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(#"{"op":"register","id":1,"parent":null,"name":"__root__"}"#.utf8 + [0x0A]))
        try handle.close()
        let said = try await PipeReader.read(errors, until: "from its start").trimmingCharacters(in: .newlines)
        #expect(said.hasSuffix("anna inspect: \(folder.file("s.ndjson")) was truncated; reading from its start"))
        process.terminate()
        let rest = try await PipeReader.read(errors, until: nil)
        #expect(!rest.contains("truncated"))  // said once
    }

    @Test("anna inspect on the TypeScript demo module serves its tree and tasks with the .ts files' places")
    func inspectTypeScript() async throws {
        let (process, _, _, port) = try await Self.inspect(events: session, module: demo.appendingPathComponent("module-ts").path)
        defer { if process.isRunning { process.terminate() } }
        try await Self.waitForLineCount(5413, port: port)
        for route in ["/api/tree", "/api/tasks"] {
            let (status, text) = try await RawConnection.request(port: port, "GET \(route) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n")
            #expect(status == 200)
            // (A namespace without a task file is listed by both names it would load.)
            #expect(text.contains("HomeViewController.ts") && !text.contains(".ts.js"), "\(route): \(text.prefix(600))")
        }
        process.terminate()
    }

    /// Starts `anna inspect --events events --module module --port 0`; the process, its standard
    /// error, what it printed up to its serving line, and the port it serves on.
    static func inspect(events: String, module: String) async throws -> (Process, Pipe, String, Int) {
        let process = Process()
        process.executableURL = AnnaProcess.executable
        process.arguments = ["inspect", "--events", events, "--module", module, "--port", "0"]
        let errors = Pipe()
        process.standardOutput = Pipe()
        process.standardError = errors
        try process.run()
        let serving = try await PipeReader.read(errors, until: "(Ctrl-C stops)")
        guard let port = port(in: serving) else {
            process.terminate()
            throw RawConnectionError("no port in: \(serving)")
        }
        return (process, errors, serving, port)
    }

    /// The port in `anna inspect`'s line `serving … on http://127.0.0.1:PORT… (Ctrl-C stops)`.
    static func port(in text: String) -> Int? {
        guard let range = text.range(of: "http://127.0.0.1:") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// Asks the inspector on `port` for its state until it has read `count` lines; throws after 20 s.
    static func waitForLineCount(_ count: Int, port: Int) async throws {
        let deadline = Date().addingTimeInterval(20)
        var answer = ""
        while Date() < deadline {
            let (status, text) = try await RawConnection.request(port: port, "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n")
            answer = text
            if status == 200, let body = text.range(of: "\r\n\r\n"),
                try JSONValue(parsing: String(text[body.upperBound...]))["playback"]?["lineCount"] == .number(Double(count))
            {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw RawConnectionError("anna inspect did not read \(count) lines within 20 s; its state: \(answer)")
    }
}
