import ArgumentParser
import CoreJS
import Foundation

/// Where the event stream comes from and how bad lines are handled.
struct StreamOptions: ParsableArguments {
    @Option(name: .customLong("events"), help: ArgumentHelp("The event stream (NDJSON); - reads standard input as it arrives.", valueName: "file|-"))
    var eventsPath: String

    @Flag(name: .customLong("keep-going"), help: "Skip malformed lines (counted in a summary) instead of stopping with exit 65.")
    var keepGoing = false

    @Flag(
        help: ArgumentHelp(
            "Exit 1 when the core reported any error (a task threw, a task file failed to load, an unknown node, the time limit)."))
    var strict = false

    @Option(
        name: .customLong("console"),
        help: ArgumentHelp("Write console output of task scripts to this file instead of standard error.", valueName: "file"))
    var consolePath: String?

    /// The console for task scripts: the `--console` file, or `standardError`.
    func makeConsole(standardError: any OutputSink) throws -> Console {
        guard let consolePath else { return Console(output: standardError) }
        try refuseOutputs(over: eventsPath, [("--console", consolePath)])
        return Console(output: try Self.consoleFile(consolePath))
    }

    /// The `--console` file at `path`, created empty; fails with 73 when it cannot be written.
    static func consoleFile(_ path: String) throws -> FileHandleOutputSink {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw CommandFailure("anna: cannot write console output to \(path)", exitCode: ExitCodes.cannotCreate)
        }
        return FileHandleOutputSink(handle)
    }

    /// The opened stream; exits with 66 when it cannot be opened.
    func openStream() throws -> LineReader {
        guard let reader = LineReader(path: eventsPath) else {
            throw CommandFailure("anna: no such event stream: \(eventsPath)", exitCode: ExitCodes.noInput)
        }
        return reader
    }
}
