import ArgumentParser

/// The `anna` command: write and test analytics task scripts against recorded sessions.
public struct AnnaCommand: ParsableCommand {
    /// Subcommands and help text.
    public static let configuration = CommandConfiguration(
        commandName: "anna",
        abstract: "Run analytics task scripts against recorded event streams.",
        discussion: """
            An event stream is NDJSON, one module operation per line (docs/event-stream.md).

            \(ExitCodes.table)

            Examples:
              anna init shop-analytics
              anna run --events session.ndjson --module analytics
              anna run --events session.ndjson --module analytics --strict --coverage
              tail -f session.ndjson | anna run --events - --module analytics --watch
              anna snapshot --events session.ndjson --module analytics --format dot
              anna trace --events session.ndjson --module analytics --expect t.json
              anna check --module analytics --events session.ndjson
            """,
        version: AnnaVersion.current,
        subcommands: [
            RunCommand.self, ReplayCommand.self, SnapshotCommand.self, TraceCommand.self, CheckCommand.self, InitCommand.self,
            OutboxCommand.self, CollectCommand.self, InspectCommand.self, ReportCommand.self,
        ]
    )

    /// Creates the command (used by the argument parser).
    public init() {}

    /// Runs `anna` with the process's arguments (after ``normalized(_:)``), then exits.
    ///
    /// The one place a failure is said: a ``CommandFailure`` writes its lines on standard
    /// error and exits with its code; any other error (bad arguments, `--help`) is the
    /// argument parser's to report.
    public static func runFromCommandLine() -> Never {
        do {
            var command = try parseAsRoot(normalized(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch let failure as CommandFailure {
            for line in failure.lines { printError(line) }
            exit(withError: failure.exitCode)
        } catch {
            exit(withError: error)
        }
        exit(withError: nil)
    }

    /// The arguments with `--coverage=FILE` spelt `--coverage-file FILE`: the argument parser
    /// has no option whose value may be left out, and `--coverage` alone is a flag.
    static func normalized(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for (position, argument) in arguments.enumerated() {
            if argument == "--" {
                result += arguments[position...]
                break
            }
            if argument.hasPrefix("--coverage=") {
                result += ["--coverage-file", String(argument.dropFirst("--coverage=".count))]
            } else {
                result.append(argument)
            }
        }
        return result
    }
}
