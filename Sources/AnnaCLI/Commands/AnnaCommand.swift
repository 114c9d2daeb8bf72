import ArgumentParser
import Foundation

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
            RunCommand.self, ReplayCommand.self, SnapshotCommand.self, TraceCommand.self, CheckCommand.self, InitCommand.self, BuildCommand.self,
            OutboxCommand.self, CollectCommand.self, InspectCommand.self, ReportCommand.self,
        ]
    )

    /// Creates the command (used by the argument parser).
    public init() {}

    /// Runs `anna` with the process's arguments (after ``normalized(_:)``), then exits.
    public static func runFromCommandLine() -> Never {
        Foundation.exit(execute(normalized(Array(CommandLine.arguments.dropFirst()))))
    }

    /// Parses `arguments`, runs the command, and returns its exit status, writing through
    /// ``StandardStreams/current`` (tests run commands in-process this way).
    ///
    /// The one place a failure is said: a ``CommandFailure`` writes its lines on standard
    /// error and gives its code; any other error is the argument parser's to word (bad
    /// arguments on standard error, `--help` and `--version` on standard output).
    package static func execute(_ arguments: [String]) -> Int32 {
        let streams = StandardStreams.current
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            // Said when it happened; the status must not claim a whole output.
            return streams.lostOutput.all.isEmpty ? ExitCode.success.rawValue : ExitCodes.outputLost.rawValue
        } catch let failure as CommandFailure {
            for line in failure.lines { streams.error.writeLine(line) }
            return failure.exitCode.rawValue
        } catch {
            let message = fullMessage(for: error)
            let code = exitCode(for: error)
            if !message.isEmpty { (code == .success ? streams.output : streams.error).writeLine(message) }
            return code.rawValue
        }
    }

    /// The arguments with `--coverage=FILE` spelt `--coverage-file FILE`: the argument parser
    /// has no option whose value may be left out, and `--coverage` alone is a flag.
    package static func normalized(_ arguments: [String]) -> [String] {
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
