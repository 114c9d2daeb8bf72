import AnnaTestSupport
import Foundation
import Testing

/// `make install` into a temporary PREFIX, from the release build `make release` made (`make
/// test` makes it once, before this test and the browser tests that use it too). It runs when
/// `ANNA_TEST_INSTALL=1` is set: `make release && ANNA_TEST_INSTALL=1 swift test --filter InstallTests`.
@Suite("make install", .timeLimit(.minutes(2)))
struct InstallTests {
    /// The repository: three levels above this file (`Tests/AnnaCLITests/InstallTests.swift`).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(
        "the installed anna runs from PREFIX/bin with its own resource bundles",
        .enabled(if: ProcessInfo.processInfo.environment["ANNA_TEST_INSTALL"] == "1"))
    func install() async throws {
        let prefix = try TemporaryFolder()
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // `make install` is `make release` (done before: `swift test` holds .build) and this.
        make.arguments = [
            "make", "-C", Self.repository.path, "install-files", "PREFIX=\(prefix.path)",
            "RELEASE_BIN=\(Self.repository.appendingPathComponent(".build/release").path)",
        ]
        make.standardOutput = FileHandle.nullDevice
        let status = try await onOwnThread {
            try make.run()
            make.waitUntilExit()
            return make.terminationStatus
        }
        #expect(status == 0)
        let anna = prefix.file("bin/anna")
        let version = try Self.run(anna, ["--version"])
        #expect(version.stdout == "0.4.0\n")
        let demo = RepositoryFixtures.demo
        let results = try Self.run(
            anna, ["run", "--events", demo.appendingPathComponent("session.ndjson").path, "--module", demo.appendingPathComponent("module").path])
        #expect(results.status == 0)
        #expect(results.stdout == (try String(contentsOf: demo.appendingPathComponent("expected-results.ndjson"), encoding: .utf8)))
        // The core it names among the readable folders is the one installed beside it.
        let workspace = try TemporaryFolder(["m/index.js": "require('../elsewhere');\n", "elsewhere.js": "", "s.ndjson": ""])
        let refused = try Self.run(anna, ["run", "--events", workspace.file("s.ndjson"), "--module", workspace.file("m")])
        #expect(refused.stderr.contains("\(prefix.path)/bin/Anna_Anna.resources/anna"))
        // The report inlines the inspector's page, read from its bundle beside the binary.
        let report = try Self.run(
            anna,
            [
                "report", "--events", demo.appendingPathComponent("session.ndjson").path, "--module", demo.appendingPathComponent("module").path,
                "-o", workspace.file("report.html"),
            ])
        #expect(report.status == 0)
        #expect(try workspace.read("report.html").contains("id=\"anna-report-data\""))
        // Shell completions, where bash-completion, zsh and fish look under PREFIX/share.
        let completions = [
            ("share/bash-completion/completions/anna", "bash"), ("share/zsh/site-functions/_anna", "zsh"),
            ("share/fish/vendor_completions.d/anna.fish", "fish"),
        ]
        for (path, shell) in completions {
            let generated = try Self.run(anna, ["--generate-completion-script", shell])
            #expect(generated.status == 0)
            #expect(!generated.stdout.isEmpty)
            #expect(try prefix.read(path) == generated.stdout, "\(path)")
        }
    }

    /// Runs `executable` from the prefix's folder (not the build's), returning status and output.
    static func run(_ executable: String, _ arguments: [String]) throws -> AnnaProcess.Output {
        try ChildProcess.runWaiting(executable: URL(fileURLWithPath: executable), arguments: arguments)
    }
}
