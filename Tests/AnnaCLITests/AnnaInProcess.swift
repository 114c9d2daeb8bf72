import AnnaCLI
import AnnaTestSupport
import Foundation

/// Runs `anna` inside the test process, through the commands' own parse-and-run path
/// (``AnnaCommand/execute(_:)``, as the binary does), with what they write captured.
///
/// The captured streams are task-local (``StandardStreams/current``), so tests run in
/// parallel, each with its own output. A test keeps ``AnnaProcess`` where a real process
/// matters: standard input, signals, `--watch`, kills and `--resume`, environment variables,
/// the current folder, a terminal, and `anna replay` (it tunes the process's JavaScript
/// engines).
enum AnnaInProcess {
    /// Runs `anna arguments…` (after ``AnnaCommand/normalized(_:)``) on a thread of its own
    /// with the main thread's stack size (deep trees recurse in JavaScript); returns the exit
    /// status and what the command wrote.
    static func run(_ arguments: [String]) async throws -> AnnaProcess.Output {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                let streams = StandardStreams.capturing()
                let status = StandardStreams.$current.withValue(streams) { AnnaCommand.execute(AnnaCommand.normalized(arguments)) }
                continuation.resume(
                    returning: AnnaProcess.Output(status: status, stdout: streams.capturedOutput, stderr: streams.capturedError))
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}

extension TemporaryFolder {
    /// Runs `anna run --events EVENTS --module MODULE` and `extra` in-process, on the
    /// workspace's files (the shop's by default).
    func runModule(events: String = "session.ndjson", module: String = "module", _ extra: [String] = []) async throws
        -> AnnaProcess.Output
    {
        try await AnnaInProcess.run(["run", "--events", file(events), "--module", file(module)] + extra)
    }
}
