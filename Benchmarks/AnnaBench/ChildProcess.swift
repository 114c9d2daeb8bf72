import Foundation

/// Runs `anna-bench measure …` in a child process and reads the one JSON line it prints.
///
/// Each measurement gets a fresh process: a fresh JavaScriptCore heap, allocator and
/// resident set, so memory figures are its own and runs do not warm each other up. The
/// child's standard error goes straight to ours.
enum ChildProcess {
    /// This executable, with links resolved (the child finds its resource bundles next to it).
    static var executableURL: URL {
        let link = "/proc/self/exe"
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) {
            return URL(fileURLWithPath: target)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    }

    /// Runs `measure` with `arguments` and returns what it printed.
    /// - Throws: ``BenchError/childFailed(arguments:status:output:)`` when the child fails or
    ///   does not print a JSON object as its last line.
    static func measure(_ arguments: [String]) throws -> ReportLine {
        try lastLine(of: executableURL, ["measure"] + arguments, source: "the output of anna-bench measure")
    }

    /// Runs `executable` with `arguments` (its standard error goes to ours) and returns the
    /// JSON object it printed as its last line.
    /// - Throws: ``BenchError/childFailed(arguments:status:output:)`` when the child cannot
    ///   start, fails, or does not print a JSON object as its last line.
    static func lastLine(of executable: URL, _ arguments: [String], source: String) throws -> ReportLine {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw BenchError.childFailed(arguments: [executable.path] + arguments, status: -1, output: "\(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationReason == .exit, process.terminationStatus == 0,
            let last = text.split(separator: "\n").last,
            let line = try? ReportLine(parsing: String(last), source: source)
        else { throw BenchError.childFailed(arguments: [executable.path] + arguments, status: process.terminationStatus, output: text) }
        return line
    }
}
