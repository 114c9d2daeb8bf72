import ArgumentParser

/// `anna check`: loads every task file and reports problems with file:line.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load every task file, report syntax errors and malformed patterns, list the patterns.",
        discussion: """
            With --module DIR the task folder is DIR/task (the layout of analytics modules);
            with --tasks DIR it is DIR. Exit 0 when every file loads cleanly, 1 otherwise.

            Examples:
              anna check --module analytics
              anna check --tasks analytics/task
            """)

    @OptionGroup var module: ModuleOptions

    func run() throws {
        let folder = try module.taskFolder()
        let checker = TaskFileChecker(taskFolder: folder.path, timeLimit: module.timeLimit)
        let files = checker.taskFiles()
        var patternCount = 0
        var problemCount = 0
        for relative in files {
            let file = folder.path + "/" + relative
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
        printOutput("\(files.count) files, \(patternCount) patterns, \(problemCount) problems")
        if problemCount > 0 { throw ExitCodes.failure }
    }
}
