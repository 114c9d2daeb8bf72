import AnnaTestSupport
import Foundation
import Testing

/// The README's "In your package" and "A first use", as written there, in a package of their
/// own: the repository cloned beside it as the README says, resolved offline (every dependency
/// is a local copy here), built and run. It builds the consumer apart (a minute or two cold,
/// cached between runs), so it runs when `ANNA_TEST_INSTALL=1` is set, as `make test` does:
/// `ANNA_TEST_INSTALL=1 swift test --filter ConsumerPackageTests`.
@Suite("The README's package snippet", .timeLimit(.minutes(20)))
struct ConsumerPackageTests {
    static let repository = InstallTests.repository

    @Test(
        "a package made of the README's snippets resolves, builds and prints what the README says",
        .enabled(if: ProcessInfo.processInfo.environment["ANNA_TEST_INSTALL"] == "1"))
    func consumerPackage() async throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let manifest = try Self.block(in: readme, startingWith: "// Package.swift")
        let tasks = try Self.block(in: readme, startingWith: "// analytics/task/index.js")
        let program = try Self.block(in: readme, startingWith: "import Anna\n")
        let printed = try Self.printedLines(in: readme)

        // A fixed place, so that the consumer's build folder is reused by the next run.
        let top = FileManager.default.temporaryDirectory.appendingPathComponent("anna-consumer-test")
        let clone = top.appendingPathComponent("anna")
        let app = top.appendingPathComponent("MyApp")
        if FileManager.default.fileExists(atPath: clone.path) { try FileManager.default.removeItem(at: clone) }  // the last run's
        try FileManager.default.createDirectory(at: top, withIntermediateDirectories: true)
        // The README: "git clone <this repository's URL> anna", beside the consumer package.
        let cloned = try await Self.run(["git", "clone", "--quiet", Self.repository.path, clone.path], in: top)
        #expect(cloned.status == 0, "git clone: \(cloned.output)")

        let sources = app.appendingPathComponent("Sources/MyApp")
        try FileManager.default.createDirectory(
            at: sources.appendingPathComponent("analytics/task"), withIntermediateDirectories: true)
        let package = """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "MyApp",
            \(manifest.split(separator: "\n").dropFirst().map { "    " + $0 }.joined(separator: "\n"))
            )

            """
        try Data(package.utf8).write(to: app.appendingPathComponent("Package.swift"))
        try Data(program.utf8).write(to: sources.appendingPathComponent("main.swift"))
        try Data(tasks.utf8).write(to: sources.appendingPathComponent("analytics/task/index.js"))
        try Data("module.exports = require('anna').configured({ task: __dirname + '/task' })\n".utf8)
            .write(to: sources.appendingPathComponent("analytics/index.js"))

        // What it fetches is checked below: the last run's resolution goes (resolving is quick).
        for stale in [".build/checkouts", ".build/repositories", ".build/workspace-state.json", "Package.resolved"] {
            let url = app.appendingPathComponent(stale)
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
        }
        let built = try await Self.run(["swift", "build", "--product", "MyApp"], in: app)
        #expect(built.status == 0, "swift build of the consumer package:\n\(built.output)")
        // Anna alone reads no GTK pkg-config file (the Gtk trait is off): no warning about its flags.
        #expect(!built.output.contains("prohibited flag") && !built.output.contains("gtk4"), "\(built.output)")
        guard built.status == 0 else { return }
        let binary = app.appendingPathComponent(".build/debug/MyApp").path
        let ran = try await Self.run([binary], in: sources)
        #expect(ran.status == 0)
        #expect(ran.output.split(separator: "\n").map(String.init) == printed)
        // The app built Anna alone: none of the heavy targets (GRDB, Hummingbird, NIO).
        let modules = try FileManager.default.contentsOfDirectory(atPath: app.appendingPathComponent(".build/debug/Modules").path)
        #expect(!modules.contains { $0.hasPrefix("GRDB") || $0.hasPrefix("Hummingbird") || $0.hasPrefix("NIOCore") })
        // With `traits: []` it fetched only the packages Anna needs, not the other products'.
        let checkouts = try FileManager.default.contentsOfDirectory(atPath: app.appendingPathComponent(".build/checkouts").path)
        #expect(checkouts.sorted() == ["swift-collections", "swift-log"])
    }

    /// The fenced code block of `markdown` whose text starts with `first`.
    static func block(in markdown: String, startingWith first: String) throws -> String {
        let fences = markdown.components(separatedBy: "```")
        // Odd-numbered pieces are the insides of fences: a language line, then the code.
        for (index, piece) in fences.enumerated() where index % 2 == 1 {
            let code = piece.drop { $0 != "\n" }.dropFirst()
            if code.hasPrefix(first) { return String(code) }
        }
        throw ReadmeError.missing(first)
    }

    /// The README's sentence "It prints `…` and `…`." after the first use, as lines.
    static func printedLines(in markdown: String) throws -> [String] {
        guard let sentence = markdown.components(separatedBy: "\n").first(where: { $0.hasPrefix("It prints `") }) else {
            throw ReadmeError.missing("It prints `")
        }
        return sentence.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    enum ReadmeError: Error, CustomStringConvertible {
        case missing(String)
        var description: String {
            switch self {
            case .missing(let start): "README.md has no block or line starting with \(String(reflecting: start))"
            }
        }
    }

    /// Runs a command in `folder`; stdout and stderr together.
    static func run(_ command: [String], in folder: URL) async throws -> (status: Int32, output: String) {
        let output = try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: command, currentDirectory: folder,
            mergingStandardError: true)
        return (output.status, output.stdout)
    }
}
