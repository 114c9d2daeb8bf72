import Anna
import Foundation

/// The set-up every measurement shares: the module with its generated tasks in a
/// workspace, a ``Manager`` whose delegate is the measurement's ``ResultCounter``, and the
/// ``HostTree`` with its screens registered.
///
/// ```swift
/// let rig = try await BenchRig(module: .bundled, tasks: source, screens: 50, counter: counter, scenario: "W3 soak")
/// EventMix.record(k, on: rig.tree.cellAnalyzers[k % rig.tree.cellAnalyzers.count])
/// ```
///
/// The rig keeps the tree (its analyzers) and the workspace (the temporary module folder)
/// alive as long as it lives itself.
final class BenchRig {
    /// Screen registration: its time (``MonotonicClock``) and resident memory
    /// (``MemorySampler``) around it.
    struct Registration {
        /// From just before the screens were registered to the flush that followed.
        var seconds: Double
        var residentBefore: Int
        var residentAfter: Int
    }

    let manager: Manager
    let counter: ResultCounter
    let tree: HostTree
    let registration: Registration
    private let workspace: ModuleWorkspace

    /// Loads the module with `tasks` (registering `__root__` and `app`) and flushes, checks
    /// that nothing matched, then registers `screens` screens and flushes again, timed. With
    /// `outbox`, every result is also appended there (``Manager/Dependency/outbox``); with
    /// `inspector`, the manager reports to it (``Manager/Dependency/inspector``).
    /// - Throws: ``BenchError`` when the workspace cannot be made, the module fails or a
    ///   result arrives while loading.
    init(
        module: ModuleChoice, tasks: String, screens: Int, counter: ResultCounter, scenario: String,
        outbox: (any ResultSink)? = nil, inspector: (any ManagerInspector)? = nil
    ) async throws {
        workspace = try module.workspace(tasks: tasks)
        var dependency = workspace.dependency
        dependency.outbox = outbox
        dependency.inspector = inspector
        manager = Manager(moduleURL: workspace.moduleURL, dependency: dependency)
        self.counter = counter
        manager.delegate = counter
        tree = HostTree(manager: manager)
        await manager.flush()
        try counter.verify(ExpectedResults(selected: 0, updated: 0), scenario: scenario + " while loading the module")

        let residentBefore = try MemorySampler.residentBytes()
        let start = MonotonicClock.now()
        tree.addScreens(screens)
        await manager.flush()
        let end = MonotonicClock.now()
        registration = Registration(
            seconds: MonotonicClock.seconds(from: start, to: end), residentBefore: residentBefore,
            residentAfter: try MemorySampler.residentBytes())
    }

    /// Throws unless the results so far are exactly `expected` and no error was reported.
    /// The tree and the workspace live at least until here, so no analyzer is released
    /// while the measured events are in flight.
    /// - Throws: ``BenchError`` (see ``ResultCounter/verify(_:scenario:)``).
    func verify(_ expected: ExpectedResults, scenario: String) throws {
        try counter.verify(expected, scenario: scenario)
    }
}

/// The noise gauges of one measurement: the machine gauge (``MachineSpeed``) timed just
/// before the measured span, and the CPU time others used (``MachineLoad``) over it.
///
/// ```swift
/// var gauges = SpanGauges.start()
/// … measure …
/// gauges.stop()
/// gauges.addFields(to: &line)   // othersCpuShare, calibrationMs
/// ```
struct SpanGauges {
    /// The machine gauge, in milliseconds.
    let calibrationMs: Double
    private let before: MachineLoad.Reading
    private var after: MachineLoad.Reading

    /// Times the machine gauge, then reads the load: call right before the measured span.
    static func start() -> SpanGauges {
        let calibration = MachineSpeed.calibrate()
        let reading = MachineLoad.Reading.now()
        return SpanGauges(calibrationMs: calibration, before: reading, after: reading)
    }

    /// Reads the load again: call right after the measured span.
    mutating func stop() {
        after = MachineLoad.Reading.now()
    }

    /// The share of all CPUs other processes used between ``start()`` and ``stop()``.
    var othersShare: Double { after.othersShare(since: before) }

    /// This process's CPU time between ``start()`` and ``stop()``, all threads, in seconds.
    var processSeconds: Double { after.processSeconds(since: before) }

    /// Adds the fields every measurement's line ends with: `othersCpuShare` and `calibrationMs`.
    func addFields(to line: inout ReportLine) {
        line["othersCpuShare"] = .number(othersShare)
        line["calibrationMs"] = .number(calibrationMs)
    }

    /// The same fields for a line of several runs: the largest share and the median gauge.
    static func addFields(of runs: [SpanGauges], to line: inout ReportLine) {
        line["othersCpuShare"] = .rounded(runs.map(\.othersShare).max() ?? 0, 2)
        line["calibrationMs"] = MachineSpeed.field(runs.map(\.calibrationMs))
    }
}

/// The analytics module of a measurement: the bundled core, or a module folder given with
/// `--module` (see ``ModuleWorkspace``).
enum ModuleChoice: Sendable {
    case bundled
    case folder(URL, taskFolderName: String, allowedRoots: [URL])

    /// A workspace holding `tasks`.
    func workspace(tasks: String) throws -> ModuleWorkspace {
        switch self {
        case .bundled:
            return try ModuleWorkspace(bundledWithTasks: tasks)
        case let .folder(url, taskFolderName, allowedRoots):
            return try ModuleWorkspace(module: url, taskFolderName: taskFolderName, tasks: tasks, allowedRoots: allowedRoots)
        }
    }
}
