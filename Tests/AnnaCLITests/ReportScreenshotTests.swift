import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@Suite("anna report with a session's screenshots", .timeLimit(.minutes(2)))
struct ReportScreenshotTests {
    let module = RepositoryFixtures.demo.appendingPathComponent("module").path

    /// The report's inlined data.
    static func data(in html: String) throws -> JSONValue {
        let start = try #require(html.range(of: "<script type=\"application/json\" id=\"anna-report-data\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return try JSONValue(parsing: String(html[start.upperBound..<end.lowerBound]))
    }

    /// A copy of the GTK demo's session and its screenshots folder, to change.
    static func copiedSession() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try FileManager.default.copyItem(
            at: RepositoryFixtures.gtk.appendingPathComponent("session.ndjson"), to: folder.url.appendingPathComponent("s.ndjson"))
        try FileManager.default.copyItem(
            at: RepositoryFixtures.gtk.appendingPathComponent("session.screens"), to: folder.url.appendingPathComponent("s.screens"))
        return folder
    }

    @Test("the screenshots beside the stream are inlined once each, at the lines of the appearances they show")
    func besideTheStream() async throws {
        let folder = try Self.copiedSession()
        let output = try await AnnaInProcess.run(["report", "--events", folder.file("s.ndjson"), "--module", module, "-o", folder.file("r.html")])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderrLines == ["anna report: wrote \(folder.file("r.html")) (183 lines, 7 screenshots)"])
        let data = try Self.data(in: try folder.read("r.html"))
        let shots = try #require(data["screens"]?["shots"]?.arrayValue)
        #expect(shots.compactMap { $0["name"]?.stringValue } == ["home", "product", "home", "product", "home", "basket", "home"])
        // Each at the line of its node's ana-appeared in the stream.
        let lines = try folder.read("s.ndjson").split(separator: "\n", omittingEmptySubsequences: false)
        for shot in shots {
            let line = try #require(shot["line"]?.safeIntegerValue)
            let text = String(lines[line - 1])
            #expect(
                text.contains(#""name":"ana-appeared""#) && text.contains(#""id":\#(shot["node"]?.stringValue ?? "?"),"#), "line \(line): \(text)")
        }
        let pictures = try #require(data["screens"]?["pictures"]?.objectValue)
        #expect(pictures.count == 7)
        let png = folder.url.appendingPathComponent("s.screens/0004.png")
        #expect(pictures["0004.png"]?.stringValue == "data:image/png;base64," + (try Data(contentsOf: png)).base64EncodedString())
    }

    @Test("--no-screenshots leaves them out; --screenshots names a folder, which must have an index")
    func options() async throws {
        let folder = try Self.copiedSession()
        let without = try await AnnaInProcess.run([
            "report", "--events", folder.file("s.ndjson"), "--module", module, "-o", folder.file("r.html"), "--no-screenshots",
        ])
        #expect(without.status == 0)
        #expect(try Self.data(in: try folder.read("r.html"))["screens"] == .null)
        let missing = try await AnnaInProcess.run([
            "report", "--events", folder.file("s.ndjson"), "--module", module, "-o", folder.file("r.html"), "--screenshots", folder.url.path,
        ])
        #expect(missing.status == 66)
        #expect(missing.stderrLines == ["anna: no screenshots in \(folder.url.path): it has no index.ndjson"])
        try FileManager.default.moveItem(atPath: folder.file("s.screens"), toPath: folder.file("pictures"))
        let elsewhere = try await AnnaInProcess.run([
            "report", "--events", folder.file("s.ndjson"), "--module", module, "-o", folder.file("r.html"), "--screenshots",
            folder.file("pictures"),
        ])
        #expect(elsewhere.status == 0)
        #expect(elsewhere.stderrLines.last?.hasSuffix("(183 lines, 7 screenshots)") == true)
    }

    @Test("an index from elsewhere: each entry that cannot be shown is said with why, the others are shown")
    func untrustedIndex() async throws {
        let folder = try Self.copiedSession()
        let index = folder.url.appendingPathComponent("s.screens/index.ndjson")
        var lines = try String(contentsOf: index, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[1] = lines[1].replacingOccurrences(of: "0002.png", with: "../s.ndjson")
        lines[2] = lines[2].replacingOccurrences(of: #""appearance":2"#, with: #""appearance":99"#)
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent("s.screens/0004.png"))
        try Data("not a png".utf8).write(to: folder.url.appendingPathComponent("s.screens/0005.png"))
        lines.append("{\"node\":")
        try (lines.joined(separator: "\n") + "\n").write(to: index, atomically: true, encoding: .utf8)
        let output = try await AnnaInProcess.run(["report", "--events", folder.file("s.ndjson"), "--module", module, "-o", folder.file("r.html")])
        #expect(output.status == 0, "\(output.stderr)")
        let said = output.stderrLines.filter { $0.hasPrefix("anna report: screenshot: ") }
        #expect(said.count == 5, "\(said)")
        #expect(said.contains { $0.hasSuffix("index.ndjson:2: field 'file' must name a file in the folder (no '/', not '..')") })
        #expect(said.contains { $0.contains("0003.png: no ana-appeared of node 2 (appearance 99)") })
        #expect(said.contains { $0.hasSuffix("0004.png: cannot read the picture") })
        #expect(said.contains { $0.hasSuffix("0005.png: not a PNG file") })
        #expect(said.contains { $0.contains("index.ndjson:8: invalid JSON") })
        #expect(output.stderrLines.last?.hasSuffix("(183 lines, 3 screenshots)") == true)
    }
}
