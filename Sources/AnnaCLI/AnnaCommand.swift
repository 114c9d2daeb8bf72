import ArgumentParser

/// The `anna` command: write and test analytics task scripts against recorded sessions.
public struct AnnaCommand: ParsableCommand {
    /// Subcommands and help text.
    public static let configuration = CommandConfiguration(
        commandName: "anna",
        abstract: "Run analytics task scripts against recorded event streams.",
        discussion: """
            An event stream is NDJSON, one module operation per line (docs/event-stream.md).
            Exit codes: 0 success, 1 failed trace or check, 64 bad arguments,
            65 malformed stream line, 66 missing file or unreadable module.

            Examples:
              anna run --events session.ndjson --module analytics
              tail -f session.ndjson | anna run --events - --tasks analytics/task --meta
              anna snapshot --events session.ndjson --module analytics --format dot | dot -Tpng > tree.png
              anna trace --events session.ndjson --module analytics --expect expected.trace.json --junit report.xml
              anna check --module analytics
            """,
        subcommands: [RunCommand.self, SnapshotCommand.self, TraceCommand.self, CheckCommand.self]
    )

    /// Creates the command (used by the argument parser).
    public init() {}
}
