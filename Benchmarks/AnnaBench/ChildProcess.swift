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
        let all = ["measure"] + arguments
        let process = Process()
        process.executableURL = executableURL
        process.arguments = all
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw BenchError.childFailed(arguments: all, status: -1, output: "\(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationReason == .exit, process.terminationStatus == 0,
            let last = text.split(separator: "\n").last,
            let line = try? ReportLine(parsing: String(last), source: "the output of anna-bench measure")
        else { throw BenchError.childFailed(arguments: all, status: process.terminationStatus, output: text) }
        return line
    }
}
