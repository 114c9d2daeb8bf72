import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// `anna collect` as a separate process: what it says when it stops, what `--list` prints, and
/// how it treats connections that stop mid-request.
@Suite("anna collect: its stop line, --list, half-open connections", .timeLimit(.minutes(2)))
struct CollectCommandTests {
    /// An upload body of `count` messages of session `s` (seq 1…count), each result `{"n": seq}`.
    static func body(_ seqs: ClosedRange<Int>) -> String {
        let messages = seqs.map { seq in
            #"{"messageId":"s-\#(seq)","session":"s","seq":\#(seq),"time":"2026-01-01T00:00:00.000Z","task":"t","path":"/a","event":"tap","result":{"n":\#(seq)}}"#
        }
        return #"{"sentAt":"2026-01-01T00:00:00.000Z","batch":["# + messages.joined(separator: ",") + "]}"
    }

    static func post(_ body: String, to port: Int) async throws -> Int {
        try await RawConnection.request(
            port: port, "POST /batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n", body: body
        ).status
    }

    @Test("on SIGTERM it says what this run stored and what the store holds, then that it stopped; --list prints the store")
    func stopLineAndList() async throws {
        let folder = try TemporaryFolder()
        let store = folder.file("c.sqlite")
        let collector = try ServedCollector(["--store", store])
        #expect(try await Self.post(Self.body(1...3), to: collector.port) == 200)
        #expect(try await Self.post(Self.body(3...3), to: collector.port) == 200)  // a duplicate
        let first = try await collector.stop()
        #expect(first.status == 0)
        #expect(first.stdoutLines == ["batch 1: 3 results (3 new, 0 duplicates) -> 200", "batch 2: 1 result (0 new, 1 duplicate) -> 200"])
        #expect(
            Array(first.stderrLines.suffix(2)) == [
                "anna collect: stored 3 new results (4 received in 2 batches, 1 duplicate; 2 requests); \(store) holds 3 results",
                "anna collect: stopped",
            ])

        let second = try ServedCollector(["--store", store])
        #expect(try await Self.post(Self.body(4...4), to: second.port) == 200)
        let stopped = try await second.stop()
        #expect(
            stopped.stderrLines.suffix(2).first
                == "anna collect: stored 1 new result (1 received in 1 batch, 0 duplicates; 1 request); \(store) holds 4 results")

        let list = try await AnnaProcess.run(["collect", "--list", store], timeout: 60)
        #expect(list.status == 0)
        #expect(list.stdoutLines.count == 4)
        let lines = try list.stdoutLines.map { try JSONValue(parsing: $0) }
        #expect(lines.map { $0["seq"] } == [1, 2, 3, 4])
        #expect(lines[1]["messageId"] == "s-2" && lines[1]["task"] == "t" && lines[1]["path"] == "/a" && lines[1]["event"] == "tap")
        #expect(lines[1]["result"] == ["n": 2])
        #expect(lines[1]["receivedAt"]?.numberValue ?? 0 > 1_700_000_000)

        let help = try await AnnaProcess.run(["collect", "--help"], timeout: 60)
        #expect(help.stdout.contains("--list <file>"))
    }

    @Test("--list refuses a missing file and a file that is not a store (66), and changes neither")
    func listRefusals() async throws {
        let folder = try TemporaryFolder(["notes.txt": "not a database\n"])
        let missing = try await AnnaProcess.run(["collect", "--list", folder.file("none.sqlite")], timeout: 60)
        #expect(missing.status == 66)
        #expect(missing.stderrLines == ["anna collect: no such store: \(folder.file("none.sqlite"))"])
        #expect(!FileManager.default.fileExists(atPath: folder.file("none.sqlite")))
        let text = try await AnnaProcess.run(["collect", "--list", folder.file("notes.txt")], timeout: 60)
        #expect(text.status == 66)
        #expect(text.stderr.contains("is not a store of anna collect"))
        #expect(try folder.read("notes.txt") == "not a database\n")
        let both = try await AnnaProcess.run(["collect", "--list", folder.file("notes.txt"), "--port", "0"], timeout: 60)
        #expect(both.status == 64)
        #expect(both.stderr.contains("--list reads a store and exits: leave out --port and --store"))
    }

    @Test("a connection that sent half a request, or nothing, is closed after --idle-timeout")
    func halfOpenConnections() async throws {
        let folder = try TemporaryFolder()
        let collector = try ServedCollector(["--store", folder.file("c.sqlite"), "--idle-timeout", "1"])
        let halfHead = try RawConnection(port: collector.port)
        try halfHead.send("POST /batch HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        let halfBody = try RawConnection(port: collector.port)
        try halfBody.send("POST /batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{\"sentAt\":")
        let silent = try RawConnection(port: collector.port)
        // Generous deadlines: the timeout is 1 s; a collector that never closes fails after 20 s.
        #expect(try await halfHead.readUntilClosed(within: 20).closed)
        #expect(try await halfBody.readUntilClosed(within: 20).closed)
        #expect(try await silent.readUntilClosed(within: 20).closed)
        #expect(try await Self.post(Self.body(1...1), to: collector.port) == 200)  // still serving
        _ = try await collector.stop()
    }

    @Test("beyond --max-connections a connection waits until one closes, then is served")
    func connectionCap() async throws {
        let folder = try TemporaryFolder()
        // An idle timeout far beyond the test: only the client's close frees the one connection.
        let collector = try ServedCollector(["--store", folder.file("c.sqlite"), "--idle-timeout", "120", "--max-connections", "1"])
        let first = try RawConnection(port: collector.port)
        try first.send("POST /batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")  // kept alive
        #expect(try await first.read(until: "}", within: 20).hasPrefix("HTTP/1.1 400"))
        let second = try RawConnection(port: collector.port)
        try second.send("POST /batch HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}")
        #expect(try await second.read(until: "}", within: 1).isEmpty)  // not accepted while the first is open
        first.close()
        #expect(try await second.readUntilClosed(within: 20).text.hasPrefix("HTTP/1.1 400"))
        let stopped = try await collector.stop()
        let capLines = stopped.stderrLines.filter { $0.contains("the most served at once") }
        #expect(
            capLines == ["anna collect: 1 connection open, the most served at once (--max-connections); new ones wait until one closes"])
    }
}

/// `anna collect --port 0 …` in the background: its port, read from the line it prints when
/// listening; ``stop()`` sends SIGTERM and returns what it printed (and dropping it unstopped
/// sends SIGTERM too).
final class ServedCollector: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var errorText = ""
    let port: Int

    init(_ arguments: [String]) throws {
        process.executableURL = AnnaProcess.executable
        process.arguments = ["collect", "--port", "0"] + arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The line it prints when listening, or whatever it said before it exited; 20 s at most.
        errorText = PipeReader.blockingRead(errors.fileHandleForReading.fileDescriptor, until: "\n", within: 20)
        guard let range = errorText.range(of: "listening on http://127.0.0.1:"),
            let end = errorText[range.upperBound...].firstIndex(of: "/"), let port = Int(errorText[range.upperBound..<end])
        else {
            process.terminate()
            throw ServedCollectorError(output: errorText)
        }
        self.port = port
    }

    /// Ends the child when a test stops early (a `try` threw before ``stop()``).
    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Sends SIGTERM, waits for the exit (on a thread of its own) and returns the exit status and output.
    func stop() async throws -> AnnaProcess.Output {
        try await onOwnThread { [self] in
            process.terminate()
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            let errorData = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return AnnaProcess.Output(
                status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                stderr: errorText + String(decoding: errorData, as: UTF8.self), signalled: process.terminationReason == .uncaughtSignal)
        }
    }
}

/// `anna collect` exited before it listened.
struct ServedCollectorError: Error, CustomStringConvertible {
    let output: String
    var description: String { "anna collect did not start: \(output)" }
}
