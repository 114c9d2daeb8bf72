import Anna
import ArgumentParser
import CoreJS

/// `anna check`: loads the module and every task file, reports problems with file:line.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load the module and every task file, report syntax errors and malformed patterns, list the patterns.",
        discussion: """
            Files load exactly as in anna run: the module's index.js first (with
            --module), then each task file on its own, reading only below the
            module's folder, the core and --allow-read folders. With --module DIR
            the task folder is the one the module configures (DIR/task); with
            --tasks DIR it is DIR. With --events FILE the stream is replayed too,
            and the coverage printed: which task files loaded, how often each task
            ran; a task file the stream never loaded is a problem, named beside
            the namespaces that had no task file (a renamed class), and
            --require-coverage makes a task that never ran one too. With
            --typecheck, TypeScript's tsc checks the types of the .ts files too
            (the module's tsconfig.json when it has one). Exit 0 when everything
            loads cleanly, 1 otherwise.

            Examples:
              anna check --module analytics
              anna check --tasks analytics/task
              anna check --module analytics --events session.ndjson
              anna check --module analytics --events session.ndjson --require-coverage
              anna check --module analytics --typecheck
            """)

    @OptionGroup var module: ModuleOptions

    @Option(
        name: .customLong("events"),
        help: ArgumentHelp("Also replay this event stream and print the coverage of the tasks.", valueName: "file|-"))
    var eventsPath: String?

    @OptionGroup var coverageRequirement: CoverageRequirement

    @Flag(
        name: .customLong("typecheck"),
        help: "Also check the types of .ts files with TypeScript's tsc (--noEmit), against the core's typings.")
    var typecheck = false

    func validate() throws {
        if coverageRequirement.isRequired, eventsPath == nil {
            throw ValidationError("--require-coverage needs --events FILE: coverage comes from replaying a stream.")
        }
    }

    func run() throws {
        let checker = TaskFileChecker(configuration: try module.engineConfiguration(console: Console(output: MemoryOutputSink())))
        var problemCount = 0
        var configured: String?
        var moduleLoads = true
        do {
            configured = try checker.loadModule()
        } catch let error as AnalyticsError {
            printError(Self.located(error))
            if let hint = module.hint(for: error) { printError("anna: \(hint)") }
            problemCount += 1
            moduleLoads = false
        }
        let folder = try configured ?? module.taskFolder().path
        try ModuleOptions.requireTaskFolder(folder)
        let files = TaskFileChecker.taskFiles(in: folder)
        var patternCount = 0
        for relative in files {
            let file = folder + "/" + relative
            let report = checker.check(file)
            printOutput(relative)
            for (line, pattern) in report.patterns {
                printOutput("  \(line.map(String.init) ?? "?"):\t\(pattern)")
            }
            for (line, message) in report.problems {
                printError("\(file):\(line.map(String.init) ?? "?"): \(message)")
            }
            patternCount += report.patterns.count
            problemCount += report.problems.count
        }
        if typecheck {
            let checked = try TypeCheck.run(moduleFolder: module.isTaskFolder ? nil : module.folder.path, taskFolder: folder)
            for problem in checked.problems { printError(problem) }
            problemCount += checked.problems.count
        }
        var covered = true
        if let eventsPath, !moduleLoads {
            // Said above; a replay would only load the module again and say it twice.
            printError("anna: \(eventsPath) was not replayed: the module does not load")
            covered = !coverageRequirement.isRequired
        } else if let eventsPath {
            let replayed = try CoverageOutput.check(module: module, events: eventsPath)
            if replayed.coreErrors > 0 { problemCount += 1 }
            // A task file the stream never loaded is a problem here: check is the lint.
            problemCount += replayed.coverage?.loadWarnings.count ?? 0
            covered = coverageRequirement.report(replayed.coverage)
        }
        printOutput(
            "\(Plural.count(files.count, "file")), \(Plural.count(patternCount, "pattern")), \(Plural.count(problemCount, "problem"))")
        if problemCount > 0 || !covered { throw CommandFailure(exitCode: ExitCodes.failure) }
    }

    /// `FILE:LINE: Name: message` for an error located in a file, else `anna: error` (an
    /// error located in the runtime's own scripts, `anna:…`, says nothing about the user's).
    static func located(_ error: AnalyticsError) -> String {
        guard let exception = error.exception, let file = exception.sourceURL, file.hasPrefix("/") else { return "anna: \(error)" }
        return "\(file):\(exception.line.map(String.init) ?? "?"): \(exception.name): \(exception.message)"
    }
}
