import Anna
import Foundation

/// W5's input: W1's work written as an event stream and a task folder, for `anna run` and
/// the original core on Node to replay.
///
/// The stream is recorded, not composed: a ``Manager`` with a recording
/// (`Dependency.recordingURL`) runs W1's host tree (``HostTree``, 50 screens) and event mix
/// (``EventMix``) through the public API, so the file holds exactly the operations an app
/// sends. The task folder holds W1's tasks (``TaskGenerator``, set `w1`).
///
/// ```
/// let workload = try await ReplayWorkload.write(events: 1_000_000, in: folder)
/// // anna run --events workload.streamURL.path --tasks workload.taskFolderURL.path
/// ```
struct ReplayWorkload {
    /// The event stream (NDJSON).
    let streamURL: URL
    /// The task folder (`index.js` with W1's tasks).
    let taskFolderURL: URL
    /// Lines of the stream (the version line, registrations and events).
    let lines: Int
    /// Registrations among them.
    let registrations: Int
    /// Events among them (the rest: the version line and the root's deregistration at the end).
    let events: Int
    /// The results the stream gives.
    let expected: ExpectedResults

    /// Records W1 with `events` events into `folder/w1.ndjson` and writes its tasks to
    /// `folder/task/index.js`; checks the results of the recording run.
    /// - Throws: ``BenchError`` when the folder cannot be written or the run's results are wrong.
    static func write(events: Int, in folder: URL) async throws -> ReplayWorkload {
        let streamURL = folder.appendingPathComponent("w1.ndjson")
        let taskFolderURL = folder.appendingPathComponent("task", isDirectory: true)
        let tasks = TaskGenerator.source(.w1, screens: HostTree.w1Screens, patterns: 0)
        do {
            try FileManager.default.createDirectory(at: taskFolderURL, withIntermediateDirectories: true)
            try tasks.write(to: taskFolderURL.appendingPathComponent("index.js"), atomically: true, encoding: .utf8)
        } catch {
            throw BenchError.workspaceFailed(path: folder.path, reason: "\(error)")
        }
        try await record(events: events, tasks: tasks, to: streamURL)
        let counts = try countLines(of: streamURL)
        return ReplayWorkload(
            streamURL: streamURL, taskFolderURL: taskFolderURL, lines: counts.lines, registrations: counts.registrations,
            events: counts.events, expected: EventMix.expectedResults(events: events))
    }

    /// Runs W1's tree and `events` events through a recording manager and checks its results.
    private static func record(events: Int, tasks: String, to url: URL) async throws {
        let workspace = try ModuleWorkspace(bundledWithTasks: tasks)
        var dependency = workspace.dependency
        dependency.recordingURL = url
        let counter = ResultCounter()
        let manager = Manager(moduleURL: workspace.moduleURL, dependency: dependency)
        manager.delegate = counter
        let tree = HostTree(manager: manager)
        tree.addScreens(HostTree.w1Screens)
        let cells = tree.cellAnalyzers
        let cellCount = min(cells.count, EventMix.cells)
        for k in 0..<events {
            EventMix.record(k, on: cells[k % cellCount])
        }
        await manager.flush()
        try counter.verify(EventMix.expectedResults(events: events), scenario: "W5 recording the stream")
        withExtendedLifetime(tree) {}
    }

    /// Lines, `register` lines and `event` lines of the stream.
    private static func countLines(of url: URL) throws -> (lines: Int, registrations: Int, events: Int) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw BenchError.workspaceFailed(path: url.path, reason: "the recording cannot be read: \(error)")
        }
        var lines = 0
        var registrations = 0
        var events = 0
        let register = Array(#"{"op":"register""#.utf8)
        let event = Array(#"{"op":"event""#.utf8)
        for line in data.split(separator: UInt8(ascii: "\n")) {
            lines += 1
            if line.starts(with: register) { registrations += 1 }
            if line.starts(with: event) { events += 1 }
        }
        return (lines, registrations, events)
    }
}
