// The stream fuzzer: lines generated from a seed (StreamFuzzer.swift) through
// `EventStream.parse(line:)` and through the built `anna run`. ANNA_FUZZ_CASES sets how many
// (default 400, a few seconds), ANNA_FUZZ_SEED which; a failure names both and the case.
// `make fuzz` runs 20,000 cases from a random seed.
import Anna
import AnnaTestSupport
import Foundation
import Testing

@Suite("Stream fuzz", .serialized, .timeLimit(.minutes(30)))
struct StreamFuzzTests {
    static let settings = FuzzSettings.current
    static let demo = RepositoryFixtures.demo
    /// The demo session's lines, in order.
    static let session: [String] = {
        do {
            return try String(contentsOf: demo.appendingPathComponent("session.ndjson"), encoding: .utf8)
                .split(separator: "\n").map(String.init)
        } catch {
            fatalError("cannot read the demo session: \(error)")
        }
    }()

    /// How `anna` may run: well under a minute even for a long debug-build replay.
    static let processTimeout: TimeInterval = 120

    @Test("every generated line parses or is refused with a visible, bounded message; what parses writes back the same")
    func parseLines() {
        let settings = Self.settings
        for number in 0..<settings.cases {
            var fuzzer = StreamFuzzer(validLines: Self.session, random: settings.random(case: number, stream: 1))
            let bytes = fuzzer.hostileLine()
            let line = String(decoding: bytes, as: UTF8.self)  // as LineReader reads it
            let place = "\(settings) case \(number): \(Self.shown(bytes))"
            do {
                guard let record = try EventStream.parse(line: line) else { continue }
                guard case let .operation(operation) = record.command else { continue }
                #expect(
                    try EventStream.parse(line: EventStream.line(for: operation, time: record.time)) == record,
                    "an accepted line does not write back the same; \(place)")
            } catch let error as EventStream.FormatError {
                #expect(Self.isPrintable(error.message), "a message with a character that does not show: \(error.message.debugDescription); \(place)")
                #expect(error.message.count < 2_000, "a message of \(error.message.count) characters; \(place)")
            } catch {
                Issue.record("\(type(of: error)) instead of a FormatError: \(error); \(place)")
            }
        }
    }

    @Test("anna run on generated streams: exit 0 or 65 (with FILE:LINE), no hang, the results before a bad line kept")
    func runFiles() async throws {
        let settings = Self.settings
        let workspace = try Workspace()
        for number in 0..<min(40, max(4, settings.cases / 500)) {
            var random = settings.random(case: number, stream: 2)
            var lines = Self.session.prefix(Int.random(in: 5...200, using: &random)).map { Array($0.utf8) }
            var next = lines.count
            var fuzzer = StreamFuzzer(validLines: Self.session, random: random)
            for _ in 0..<Int.random(in: 1...3, using: &fuzzer.random) {
                lines.append(fuzzer.hostileLine())
                let count = Int.random(in: 0...20, using: &fuzzer.random)
                lines += Self.session[next..<min(Self.session.count, next + count)].map { Array($0.utf8) }
                next += count
            }
            try await check(lines: lines, in: workspace, place: "\(settings) file \(number)")
        }
    }

    /// Runs `anna run` on `lines` (as is, then with --keep-going), and on the lines before the
    /// one it stopped at; records what is wrong.
    private func check(lines: [[UInt8]], in workspace: Workspace, place: String) async throws {
        let file = workspace.file("fuzz.ndjson")
        try Data(lines.joined(separator: [0x0A]) + [0x0A]).write(to: URL(fileURLWithPath: file))
        let module = Self.demo.appendingPathComponent("module").path
        let run = try await AnnaProcess.run(["run", "--events", file, "--module", module], timeout: Self.processTimeout)
        let keepGoing = try await AnnaProcess.run(["run", "--events", file, "--module", module, "--keep-going"], timeout: Self.processTimeout)
        func failed(_ what: String) async {
            Issue.record("\(what); \(place), kept at \(keep(file)):\n\(run.stderr.prefix(2_000))")
        }
        guard !run.timedOut, !keepGoing.timedOut else { return await failed("anna ran longer than \(Self.processTimeout) s") }
        guard !run.signalled, !keepGoing.signalled else { return await failed("anna crashed (signal \(run.status), \(keepGoing.status))") }
        guard keepGoing.status == 0 else { return await failed("--keep-going exited \(keepGoing.status)") }
        guard Self.isPrintable(run.stderr) else { return await failed("standard error holds a character that does not show") }
        switch run.status {
        case 0:
            break
        case 65:
            let prefix = "\(file):"
            guard let message = run.stderrLines.first(where: { $0.hasPrefix(prefix) && !$0.contains(": error: ") && !$0.contains(": warning: ") }),
                let number = Int(message.dropFirst(prefix.count).prefix { $0.isNumber }), number >= 1, number <= lines.count
            else { return await failed("exit 65 without a FILE:LINE message") }
            let valid = workspace.file("valid.ndjson")
            try Data(lines.prefix(number - 1).joined(separator: [0x0A]) + [0x0A]).write(to: URL(fileURLWithPath: valid))
            let before = try await AnnaProcess.run(["run", "--events", valid, "--module", module], timeout: Self.processTimeout)
            guard before.status == 0, before.stdout == run.stdout else {
                return await failed("the results of the \(number - 1) lines before line \(number) differ from a run of those lines alone")
            }
        default:
            await failed("exit \(run.status)")
        }
    }

    /// Copies a failing stream where it outlives the test's folder; its path.
    private func keep(_ file: String) -> String {
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("anna-fuzz-\(UUID().uuidString).ndjson")
        do {
            try FileManager.default.copyItem(at: URL(fileURLWithPath: file), to: kept)
            return kept.path
        } catch {
            return "(not kept: \(error))"
        }
    }

    /// Whether every character of `text` shows (line breaks between messages aside).
    static func isPrintable(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .control: return scalar == "\n"
            case .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate: return false
            case .spaceSeparator: return scalar == " "
            default: return true
            }
        }
    }

    /// A case as a failure shows it: escaped, and cut.
    static func shown(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(600), as: UTF8.self).debugDescription
        return bytes.count > 600 ? text + " … (\(bytes.count) bytes)" : text
    }
}
