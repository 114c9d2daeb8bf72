import Anna
import ArgumentParser
import CoreJS
import OrderedCollections

/// `anna run`: prints each result as one line of compact JSON, in order, as it comes.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Replay an event stream and print every result as a line of JSON.",
        discussion: """
            Standard output carries results only; console output of task scripts goes to
            standard error (or --console FILE). Errors in the stream or the core are reported
            on standard error as FILE:LINE: message.

            Examples:
              anna run --events session.ndjson --module analytics
              anna run --events session.ndjson --tasks analytics/task --meta
              tail -f session.ndjson | anna run --events - --module analytics
            """)

    @OptionGroup var stream: StreamOptions
    @OptionGroup var module: ModuleOptions

    @Flag(help: "Print {\"result\":…,\"task\":…,\"path\":…,\"event\":…} for each result.")
    var meta = false

    func run() throws {
        let withMeta = meta
        let (_, summary) = try StreamReplay.replay(stream, through: module) { result in
            printOutput(withMeta ? Self.metaLine(for: result) : result.value.jsonText)
        }
        try StreamReplay.finish(summary)
    }

    static func metaLine(for result: AnalyticsResult) -> String {
        let fields: OrderedDictionary<String, JSONValue> = [
            "result": result.value,
            "task": result.meta.map { .string($0.task) } ?? .null,
            "path": result.meta.map { .string($0.path) } ?? .null,
            "event": result.meta.map { .string($0.event) } ?? .null,
        ]
        return JSONValue.object(fields).jsonText
    }
}
