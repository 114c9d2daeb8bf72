import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// The hostile-script corpus (`fixtures/hostile`): task files that loop in results, getters,
/// proxies, top-level code and promise jobs, throw what cannot be read, replace built-ins,
/// hold ever more memory or forge the bridge's framing, run through the built `anna`. No
/// crash, no hang, no lost result, and each one reported at its line with its file:line.
@Suite("anna run on the hostile-script corpus")
struct HostileCorpusTests {
    private struct Expected: Decodable {
        var results: [JSONValue]
        var errors: [[JSONValue]]
        var errorCount: Int
    }

    @Test("every hostile task is reported at its line; the well-behaved task's results all arrive; exit 0")
    func corpus() async throws {
        let folder = RepositoryFixtures.folder.appendingPathComponent("hostile", isDirectory: true)
        let module = folder.appendingPathComponent("module").path
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: folder.appendingPathComponent("expected.json")))
        let output = try await AnnaProcess.run(
            [
                "run", "--events", folder.appendingPathComponent("session.ndjson").path, "--module", module,
                "--time-limit", "0.5", "--memory-limit", "64",
            ],
            timeout: 120)
        #expect(!output.signalled && !output.timedOut, "no crash, no hang: \(output.stderr)")
        #expect(output.status == 0, "\(output.stderr)")
        let results = try output.stdoutLines.map { try JSONValue(parsing: $0) }
        #expect(results == expected.results)

        let errors = output.stderrLines.compactMap { line -> (line: Int, text: String)? in
            guard let range = line.range(of: #":(\d+): error: "#, options: .regularExpression) else { return nil }
            let number = line[range].dropFirst().prefix { $0.isNumber }
            return (Int(number) ?? 0, String(line[range.upperBound...]).replacingOccurrences(of: module, with: "MODULE"))
        }
        #expect(errors.count == expected.errorCount, "\(output.stderr)")
        for entry in expected.errors {
            // A text, or a list of texts of which any one will do.
            let texts: [String] =
                switch entry.count == 2 ? entry[1] : .null {
                case .string(let text): [text]
                case .array(let options): options.compactMap(\.stringValue)
                default: []
                }
            guard !texts.isEmpty else {
                Issue.record("a malformed entry in expected.json: \(entry)")
                continue
            }
            let line = entry[0].numberValue.map { Int($0) }  // null: any line
            #expect(
                errors.contains { error in (line == nil || error.line == line) && texts.contains { error.text.contains($0) } },
                "line \(line ?? 0): \(texts)\n\(output.stderr)")
        }
    }
}
