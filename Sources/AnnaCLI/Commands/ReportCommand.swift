import Anna
import AnnaInspector
import ArgumentParser
import CoreJS
import Foundation

/// `anna report`: one self-contained HTML file of a session, to send and open offline.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Replay an event stream and write one self-contained HTML report of the session.",
        discussion: """
            The report is the inspector's page frozen at the end of the stream (tree, tasks,
            the last 500 results, errors, figures, snapshot downloads) plus a timeline of
            events, results and errors over the stream's lines; with --expect, the trace
            check too (listing every result no trace expects; standard output lists them
            with --verbose). It works opened from disk, offline: nothing is fetched.

            Screenshots taken while the session was recorded (AnnaGtk's, in the folder
            beside the stream: session.ndjson → session.screens) are shown on the timeline
            at the lines of the ana-appeared events they belong to, inlined in the file.
            --screenshots names another folder; --no-screenshots leaves them out.

            Exit 0 when the report is written (1 when --expect's traces fail; the report is
            written anyway).

            Examples:
              anna report --events session.ndjson --module analytics -o report.html
              anna report --events session.ndjson --tasks analytics/task -o r.html --expect session.trace.json
            """)

    @Option(help: ArgumentHelp("The event stream (NDJSON).", valueName: "file")) var events: String
    @OptionGroup var module: ModuleOptions
    @Option(name: .shortAndLong, help: ArgumentHelp("The HTML file to write.", valueName: "file")) var output: String
    @Option(help: ArgumentHelp("A trace file to check the results against (as anna trace).", valueName: "file")) var expect: String?
    @Flag(help: "List each result no trace expects on standard output (the report always lists them).") var verbose = false
    @Option(help: ArgumentHelp("The session's screenshots folder (default: the stream's name with .screens, when it exists).", valueName: "folder"))
    var screenshots: String?
    @Flag(help: "Leave the screenshots out.") var noScreenshots = false

    func run() throws {
        guard FileManager.default.fileExists(atPath: events) else {
            throw CommandFailure("anna: no such event stream: \(events)", exitCode: ExitCodes.noInput)
        }
        try refuseOutputs(over: events, [("--output", output)])
        let traces = try expect.map(Trace.loadFile)
        let screens = try loadScreens()
        let console = Console(output: StandardStreams.current.error)
        _ = try module.loadEngine(console: console)  // a module that cannot load stops here, with its hint
        let configuration = try module.engineConfiguration(console: console)
        let values = Locked<[JSONValue]>([])
        let session = StreamSession(
            source: .file(path: events, follow: false), debug: module.debug, notice: { printError("anna: \($0)") },
            onResult: { result in values.withLock { $0.append(result.value) } },
            makeEngine: { try AnalyticsEngine(configuration: configuration) })
        try session.start()
        let (html, check) = try runBlocking {
            await session.waitUntilHandled()
            let check = traces.map { TraceReport(traces: $0, results: values.withLock { $0 }) }
            return (try await SessionReport.html(of: session, trace: check?.text(verbose: true), screens: screens), check)
        }
        do {
            try html.write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            throw CommandFailure("anna: cannot write \(output): \(error.localizedDescription)", exitCode: ExitCodes.cannotCreate)
        }
        let shown = screens.map { ", \(Plural.count($0.placed, "screenshot"))" } ?? ""
        printError("anna report: wrote \(output) (\(Plural.count(session.lineCount, "line"))\(shown))")
        if let check {
            printOutput(check.text(verbose: verbose))
            if !check.passed { throw CommandFailure(exitCode: ExitCodes.failure) }
        }
    }

    /// The screenshots to show: `--screenshots`' folder (which must exist), else the one beside
    /// the stream if it exists; each problem with them is said on standard error.
    private func loadScreens() throws -> ReportScreens? {
        if noScreenshots { return nil }
        let eventsURL = URL(fileURLWithPath: events)
        let folder: URL
        if let screenshots {
            folder = URL(fileURLWithPath: screenshots)
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(ScreenshotIndex.fileName).path) else {
                throw CommandFailure(
                    "anna: no screenshots in \(screenshots): it has no \(ScreenshotIndex.fileName)", exitCode: ExitCodes.noInput)
            }
        } else {
            folder = ScreenshotIndex.folder(besideRecording: eventsURL)
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(ScreenshotIndex.fileName).path) else {
                return nil
            }
        }
        let screens: ReportScreens
        do {
            screens = try ReportScreens(folder: folder, events: eventsURL)
        } catch {
            throw CommandFailure("anna: \(error)", exitCode: ExitCodes.noInput)
        }
        for problem in screens.problems { printError("anna report: screenshot: \(problem)") }
        return screens
    }
}
