import CoreJS
import Dispatch

/// The managers in debug mode, which hear about analyzers whose events wait for a parent:
/// an analyzer without a root has no manager of its own to report to.
enum DebugManagers {
    private struct Entry: @unchecked Sendable {
        weak var manager: Manager?
    }

    private static let entries = Locked<[Entry]>([])

    /// Adds a manager in debug mode (held weakly).
    static func add(_ manager: Manager) {
        entries.withLock { entries in
            entries.removeAll { $0.manager == nil }
            entries.append(Entry(manager: manager))
        }
    }

    /// In debug mode, checks `analyzer` once its first waiting event has waited the shortest
    /// ``Manager/Dependency/waitingEventsReportDelay`` of the debug managers, and reports it
    /// to them if its events still wait.
    static func watchWaitingEvents(of analyzer: Analyzer) {
        let delay = entries.withLock { entries in
            entries.compactMap { $0.manager?.dependency.waitingEventsReportDelay }.min()
        }
        guard let delay else { return }  // no manager in debug mode
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.inSeconds) { [weak analyzer] in
            guard let report = analyzer?.waitingEventsReport() else { return }
            let managers = entries.withLock { $0.compactMap(\.manager) }
            for manager in managers { manager.report(report) }
        }
    }
}
