// Hostile input through the built binary: lines that used to trap `anna` or pass silently
// wrong, and --time-limit values that made no sense.
import AnnaTestSupport
import Foundation
import Testing

@Suite("anna: hostile stream lines and option values", .timeLimit(.minutes(3)))
struct HostileInputTests {
    static let idRange = "within ±9007199254740991 (2^53 − 1, the integers JavaScript holds exactly)"
    static let infinity = "is out of range (it would be Infinity, which JSON cannot carry)"

    /// The shop session (9 lines, 2 results), `line` as line 10, then a line that would give
    /// a third result.
    func runShop(after line: String) async throws -> (AnnaProcess.Output, file: String) {
        let workspace = try Workspace.shop()
        let file = workspace.file("bad.ndjson")
        try workspace.writeSession("bad.ndjson", appending: line + "\n" + #"{"op":"event","id":3,"name":"did-select"}"# + "\n")
        return (try await AnnaInProcess.run(["run", "--events", file, "--module", workspace.file("module")]), file)
    }

    @Test(
        "a line that does not hold exactly what it says exits 65 with FILE:LINE, after the results of the lines before it",
        arguments: [
            (
                #"{"op":"register","id":9223372036854775807,"parent":3,"name":"x"}"#,
                "field 'id' must be a node ID of integers \(idRange), got 9223372036854776000"
            ),
            (#"{"op":"event","id":1e19,"name":"did-select"}"#, "field 'id' must be a node ID of integers \(idRange), got 10000000000000000000"),
            (#"{"op":"deregister","id":1e400}"#, "number 1e400 in 'id' \(infinity)"),
            (#"{"op":"appear","id":[2,1e30]}"#, "field 'id' must be a node ID of integers \(idRange), got [2,1e+30]"),
            (
                #"{"op":"register","id":4,"parent":9007199254740993,"name":"x"}"#,
                "field 'parent' must be a node ID of integers \(idRange), got 9007199254740992"
            ),
            (
                #"{"op":"register","id":[9007199254740993,"k"],"parent":3,"name":"x"}"#,
                #"field 'id' must be a node ID of integers \#(idRange), got [9007199254740992,"k"]"#
            ),
            (#"{"op":"register","id":4,"parent":3,"name":"x","index":1e16}"#, "field 'index' must be an integer \(idRange), got 10000000000000000"),
            (#"{"op":"event","id":3,"name":"did-select","time":1e400}"#, "number 1e400 in 'time' \(infinity)"),
            (#"{"op":"event","id":3,"name":"did-select","properties":{"n":1e400}}"#, "number 1e400 in 'properties.n' \(infinity)"),
            (#"{"op":"event","id":3,"name":"did-select","id":4}"#, "duplicate key 'id'"),
            (#"{"op":"event","id":3,"name":"did-select","properties":{"n":1,"n":2}}"#, "duplicate key 'n' in 'properties'"),
            ("\u{FEFF}" + #"{"op":"event","id":3,"name":"did-select"}"#, "invalid JSON at column 1: unexpected character U+FEFF (a byte order mark)"),
            (
                #"{"op":"event\#u{FEFF}","id":3,"name":"did-select"}"#,
                "unknown op 'event<U+FEFF>' (expected register, event, update, appear, disappear, deregister, snapshot, version)"
            ),
        ])
    func malformedAfterResults(line: String, message: String) async throws {
        let (output, file) = try await runShop(after: line)
        #expect(output.status == 65)
        #expect(output.stdoutLines == [#"{"action":"viewed","screen":"/home"}"#, #"{"action":"selected","item":4,"title":"Boots"}"#])
        #expect(output.stderrLinesWithoutNotes == ["\(file):10: \(message)"])
    }

    @Test("IDs at ±(2^53 − 1) replay exactly, in results and in error messages")
    func largestIDs() async throws {
        let (output, file) = try await runShop(
            after: """
                {"op":"register","id":9007199254740991,"parent":[2,"list"],"name":"item","index":9007199254740991}
                {"op":"event","id":9007199254740991,"name":"did-select"}
                {"op":"event","id":-9007199254740991,"name":"did-select"}
                """)
        #expect(output.status == 0)
        #expect(
            output.stdoutLines.dropFirst(2) == [
                #"{"action":"selected","item":9007199254740991}"#, #"{"action":"selected","item":4,"title":"Boots"}"#,
            ])
        #expect(
            output.stderrLinesWithoutNotes.first
                == "\(file):12: error: recording 'did-select' on node -9007199254740991 failed: NodeError: Cannot record event 'did-select' on node -9007199254740991: the node is not registered."
        )
    }

    @Test("an error of the module quoting the stream shows what does not show, on one line")
    func visibleModuleErrors() async throws {
        let (output, file) = try await runShop(after: #"{"op":"event","id":99,"name":"tap\u2028\n\u0000"}"#)
        #expect(output.status == 0)
        #expect(
            output.stderrLinesWithoutNotes.first
                == "\(file):10: error: recording 'tap<U+2028><U+000A><U+0000>' on node 99 failed: NodeError: Cannot record event 'tap<U+2028><U+000A><U+0000>' on node 99: the node is not registered."
        )
    }

    @Test("a byte order mark opening the stream is dropped; line numbers stay those of the file")
    func byteOrderMark() async throws {
        let workspace = try Workspace.shop()
        let session = try workspace.read("session.ndjson")
        try workspace.write("bom.ndjson", "\u{FEFF}" + session + #"{"op":"teleport"}"# + "\n")
        let file = workspace.file("bom.ndjson")
        let output = try await AnnaInProcess.run(["run", "--events", file, "--module", workspace.file("module")])
        #expect(output.status == 65)
        #expect(output.stdoutLines.count == 2)
        #expect(
            output.stderrLinesWithoutNotes == [
                "\(file):10: unknown op 'teleport' (expected register, event, update, appear, disappear, deregister, snapshot, version)"
            ])
        let piped = try await AnnaProcess.run(["run", "--events", "-", "--module", workspace.file("module")], input: "\u{FEFF}" + session)
        #expect(piped.status == 0)
        #expect(piped.stdoutLines.count == 2)
        #expect(piped.stderrLinesWithoutNotes == [])
    }

    @Test(
        "--time-limit outside 0.001 … 3600 seconds is a usage error of every command that loads a module",
        arguments: ["run", "snapshot", "trace", "check"], [("1e-9", "1e-09"), ("inf", "inf"), ("1e308", "1e+308"), ("nan", "nan"), ("0", "0.0")])
    func timeLimitRange(command: String, value: (given: String, shown: String)) async throws {
        let workspace = try Workspace.shop()
        var arguments = [command, "--module", workspace.file("module"), "--time-limit", value.given]
        if command != "check" { arguments += ["--events", workspace.file("session.ndjson")] }
        if command == "trace" { arguments += ["--expect", workspace.file("none.json")] }
        let output = try await AnnaInProcess.run(arguments)
        #expect(output.status == 64)
        #expect(output.stderrLines.first == "Error: --time-limit must be from 0.001 to 3600 seconds, got \(value.shown).")
        #expect(output.stdout == "")
    }

    @Test("--time-limit at the ends of its range is accepted; --help says the range")
    func timeLimitEnds() async throws {
        let workspace = try Workspace.shop()
        let longest = try await workspace.runModule(["--time-limit", "3600"])
        #expect(longest.status == 0)
        #expect(longest.stdoutLines.count == 2)
        let shortest = try await workspace.runModule(["--time-limit", "0.001"])
        #expect(shortest.status == 0 || shortest.status == 66, "a millisecond may be too short to load the module: \(shortest.stderr)")
        let help = try await AnnaInProcess.run(["run", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("--time-limit <seconds> Seconds of CPU time one operation may run in JavaScript, from 0.001 to 3600. (default: 2.0)"))
        #expect(help.contains("--memory-limit <MB> Megabytes the JavaScript heap may hold, from 16 to 1048576. (default: 512)"))
        let tiny = try await workspace.runModule(["--memory-limit", "8"])
        #expect(tiny.status == 64)
        #expect(tiny.stderr.contains("Error: --memory-limit must be from 16 to 1048576 MB, got 8."))
    }
}
