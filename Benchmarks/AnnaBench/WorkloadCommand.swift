import ArgumentParser
import Foundation

/// `anna-bench workload --out DIR [--events N]`: writes W5's input (W1 as an event stream and
/// its task folder, see ``ReplayWorkload``) for a profiler or a by-hand comparison.
///
/// ```
/// anna-bench workload --out .build/w5
/// perf record -g .build/release/anna run --events .build/w5/w1.ndjson --tasks .build/w5/task > /dev/null
/// ```
struct WorkloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workload",
        abstract: "Write W1 as an event stream (DIR/w1.ndjson) and its tasks (DIR/task), the input of W5.")

    @Option(help: ArgumentHelp("The folder to write to (created when missing).", valueName: "dir"))
    var out: String

    @Option(help: "Events in the stream (default 1,000,000).")
    var events = 1_000_000

    func validate() throws {
        guard events > 0 else { throw ValidationError("--events must be positive.") }
    }

    func run() async throws {
        let workload = try await ReplayWorkload.write(events: events, in: URL(fileURLWithPath: out, isDirectory: true))
        print(
            "\(workload.streamURL.path): \(workload.lines) lines (\(workload.registrations) registrations, "
                + "\(workload.events) events), \(workload.expected.total) results expected; tasks in \(workload.taskFolderURL.path)")
    }
}
