import AnnaTestSupport
import Foundation
import Testing

@Suite("anna on a chain of 20,000 nested nodes", .timeLimit(.minutes(2)))
struct DeepTreeCommandTests {
    static let depth = 20_000

    /// A module whose task reports the depth of `n/n` nodes, with `chain.ndjson` (root / n / n
    /// / …, `depth` levels, a `tap` on the deepest node) and `wide.ndjson` (as many nodes, all
    /// children of the root, each with a name of its own: as many paths, one level deep).
    static func workspace() throws -> Workspace {
        let header = #"{"op":"version","version":1}"# + "\n" + #"{"op":"register","id":1,"parent":null,"name":"__root__","time":5}"# + "\n"
        var chain = header
        var wide = header
        for id in 2...depth + 1 {
            chain += #"{"op":"register","id":\#(id),"parent":\#(id - 1),"name":"n","time":5}"# + "\n"
            wide += #"{"op":"register","id":\#(id),"parent":1,"name":"n\#(id)","time":5}"# + "\n"
        }
        let tap = #"{"op":"event","id":\#(depth + 1),"name":"tap","time":6}"# + "\n"
        return try Workspace([
            "module/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' });\n",
            "module/task/index.js": "match('n/n/tap', (node) => ({ depth: node.path.length / 2 }));\n",
            "chain.ndjson": chain + tap,
            "wide.ndjson": wide + tap,
        ])
    }

    @Test("run sends the deepest node's result, and snapshot prints markup, json and dot, linear in the nodes")
    func runAndSnapshot() async throws {
        let workspace = try Self.workspace()
        let arguments = ["--events", workspace.file("chain.ndjson"), "--module", workspace.file("module")]
        let run = try await AnnaProcess.run(["run"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutLines == [#"{"depth":\#(Self.depth)}"#])

        let markup = try await AnnaProcess.run(["snapshot"] + arguments)
        #expect(markup.status == 0, "\(markup.stderr)")
        let capped = String(repeating: " ", count: 64)  // the indent of level 32 and deeper
        #expect(markup.stdout.contains("\n\(capped)<tap class=\"ana-event\" time=\"6\" />\n\(capped)</n>\n"))
        #expect(markup.stdout.hasSuffix("\n  </n>\n</__root__>\n"))
        #expect(markup.stdout.utf8.count / Self.depth < 1024)

        let json = try await AnnaProcess.run(["snapshot", "--format", "json"] + arguments)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(
            json.stdout.hasSuffix(
                #""events":[{"name":"tap","time":6,"properties":{}}],"children":[]}"# + String(repeating: "]}", count: Self.depth) + "}\n"))
        #expect(json.stdout.utf8.count / Self.depth < 256)

        let dot = try await AnnaProcess.run(["snapshot", "--format", "dot"] + arguments)
        #expect(dot.status == 0, "\(dot.stderr)")
        let lines = dot.stdoutLines
        #expect(lines.count == 3 + 1 + 2 * Self.depth + 1, "a box per node, an edge per node but the root")
        #expect(lines.suffix(3) == [#"  "\#(Self.depth + 1)" [label="n\nlast: tap"];"#, #"  "\#(Self.depth)" -> "\#(Self.depth + 1)";"#, "}"])
    }

    /// GNU time reports a command's peak resident memory as the kernel counted it (`wait4`'s
    /// `ru_maxrss`), a figure timing does not change. It must be the one to start the command:
    /// a process started from this one counts this process's own peak (the shared memory it
    /// starts from before `exec`).
    static let gnuTime = "/usr/bin/time"

    @Test(
        "a node of the chain costs the memory of a node one level deep (peak resident memory of anna run)",
        .enabled(if: FileManager.default.isExecutableFile(atPath: gnuTime), "needs GNU time at /usr/bin/time"))
    func memoryPerNode() async throws {
        let workspace = try Self.workspace()
        let module = workspace.file("module")
        let chain = ["run", "--events", workspace.file("chain.ndjson"), "--module", module]
        let tree = ["run", "--events", workspace.file("wide.ndjson"), "--module", module]
        let deep = try await onOwnThread { try Self.peakKilobytes(chain) }
        let wide = try await onOwnThread { try Self.peakKilobytes(tree) }
        // A path string per node made the chain take about 500 MB, against 90 MB for the wide tree.
        #expect(deep < wide * 3 / 2, "chain: \(deep) KB, wide tree: \(wide) KB")
    }

    /// The peak resident memory of `anna arguments…` in kilobytes, measured by GNU time.
    static func peakKilobytes(_ arguments: [String]) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gnuTime)
        process.arguments = ["--format", "peak %M", AnnaProcess.executable.path] + arguments
        let stderr = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        try process.run()
        let text = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        let peak = text.split(separator: "\n").last.flatMap { $0.hasPrefix("peak ") ? Int($0.dropFirst(5)) : nil }
        return try #require(peak, "GNU time printed no peak: \(text)")
    }
}
