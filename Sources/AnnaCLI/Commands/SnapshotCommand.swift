import Anna
import ArgumentParser
import CoreJS

/// `anna snapshot`: replays the stream, then prints the focus tree.
struct SnapshotCommand: ParsableCommand {
    /// Output formats: the core's two plus Graphviz.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case markup, json, dot
    }

    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Replay an event stream, then print a snapshot of the focus tree.",
        discussion: """
            Examples:
              anna snapshot --events session.ndjson --module analytics
              anna snapshot --events session.ndjson --module analytics --format json
              anna snapshot --events session.ndjson --module analytics --format dot | dot -Tsvg > tree.svg
            """)

    @OptionGroup var stream: StreamOptions
    @OptionGroup var module: ModuleOptions

    @Option(help: "markup (the reference format), json, or dot (Graphviz).")
    var format: Format = .markup

    func run() throws {
        let (engine, summary) = try StreamReplay.replay(stream, through: module) { _ in }
        switch format {
        case .markup: printOutput(try engine.snapshot(format: .markup))
        case .json: printOutput(try engine.snapshot(format: .json))
        case .dot: printOutput(try DotRenderer.render(snapshotJSON: engine.snapshot(format: .json)))
        }
        try StreamReplay.finish(summary, strict: stream.strict)
    }
}
