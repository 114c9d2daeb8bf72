import CoreJS
import Dispatch
import Foundation

/// What happens to the live managers when the process ends normally (a return from `main`,
/// `exit()`): an `atexit` handler, registered when the first ``Manager`` is made, gives them
/// at most ``bound`` together to handle what was sent, write the recording, hand the results
/// to their delegates and sinks, and have the sinks store them (``ResultSink/drain(before:)``).
///
/// It never waits for a queue the exiting thread itself runs (the script queue of the
/// exiting task, the delegate queue when it is `.main` and `exit()` is called on the main
/// thread, a delivery the exiting thread is inside): results waiting for such a delegate queue
/// go to the manager's sink (``Manager/Dependency/outbox``) from the exiting thread, without
/// the delegate. What could not be saved is counted in one line on standard error.
enum ExitDrain {
    /// How long the drain at exit may take, for every manager together.
    static let bound: Duration = .seconds(2)
    /// The part of ``bound`` kept for the sinks' own drain after the deliveries.
    static let sinkReserve: Duration = .milliseconds(500)

    private struct Entry: @unchecked Sendable {
        weak var manager: Manager?
    }

    private struct Registry {
        var entries: [Entry] = []
        var handlerInstalled = false
    }

    private static let registry = Locked(Registry())

    /// Adds a manager (held weakly) and installs the handler the first time.
    static func add(_ manager: Manager) {
        let install = registry.withLock { registry in
            registry.entries.removeAll { $0.manager == nil }
            registry.entries.append(Entry(manager: manager))
            defer { registry.handlerInstalled = true }
            return !registry.handlerInstalled
        }
        if install { atexit { ExitDrain.run() } }
    }

    /// The `atexit` handler: drains every live manager within ``bound``, then says what was lost.
    static func run() {
        let managers = registry.withLock { registry in
            defer { registry.entries.removeAll() }
            return registry.entries.compactMap(\.manager)
        }
        guard !managers.isEmpty else { return }
        let loss = drain(managers, before: ContinuousClock.now + bound)
        if let line = loss.line { FileHandleOutputSink.standardError.write(line + "\n") }
    }

    /// Drains `managers` before `deadline`: their script queues together first, then their
    /// deliveries (the blocks waiting taken over, then the blocks other threads deliver waited
    /// for), then their sinks (a sink shared by several, by ``ResultSink/drainIdentity``,
    /// once). What is still on its way is counted last: the deliveries' rest, then what the
    /// sinks hold (a result that moves between the two counts is counted twice, never missed).
    static func drain(_ managers: [Manager], before deadline: ContinuousClock.Instant) -> ExitLoss {
        var loss = ExitLoss()
        let started = managers.map { manager in (manager, manager.script.beginExitDrain(for: manager)) }
        for (manager, drain) in started {
            loss.operations += manager.script.finishExitDrain(drain, before: deadline)
        }
        var inFlight: [ExitInFlight] = []
        for manager in managers {
            let delivered = manager.delivery.drainAtExit(before: deadline - sinkReserve)
            loss.results += delivered.results
            loss.undelivered += delivered.undelivered
            inFlight.append(delivered.inFlight)
        }
        // Every manager's waiting blocks were taken first; now the ones other threads deliver.
        wait(before: deadline - sinkReserve) { inFlight.contains(where: \.isRunningElsewhere) }
        var drained = Set<ObjectIdentifier>()
        var sinks: [any ResultSink] = []
        for manager in managers {
            guard let sink = manager.dependency.outbox else { continue }
            if let identity = sink.drainIdentity, !drained.insert(identity).inserted { continue }
            sinks.append(sink)
        }
        // Each sink stores what it took by the deadline; what it holds is read again below.
        for sink in sinks { _ = sink.drain(before: deadline) }
        for deliveries in inFlight {
            let rest = deliveries.rest()
            loss.results += rest.results
            loss.undelivered += rest.undelivered
        }
        for sink in sinks { loss.results += sink.drain(before: .now) }
        return loss
    }
}

extension ExitDrain {
    /// Looks at `condition` every millisecond while it holds, until `deadline`.
    static func wait(before deadline: ContinuousClock.Instant, while condition: () -> Bool) {
        while ContinuousClock.now < deadline && condition() { usleep(1000) }
    }
}

/// What a drain at exit could not save.
struct ExitLoss: Sendable, Equatable {
    /// Operations sent but never handled (nor recorded).
    var operations = 0
    /// Results never handed to the sink, or handed to it and not stored.
    var results = 0
    /// Results that reached the sink (or no one) but not the delegate.
    var undelivered = 0

    /// The line said on standard error, or `nil` when nothing was lost.
    var line: String? {
        var parts: [String] = []
        if operations > 0 { parts.append(Plural.count(operations, "operation") + " not handled (nor recorded)") }
        if results > 0 { parts.append(Plural.count(results, "result") + " not stored") }
        if undelivered > 0 { parts.append(Plural.count(undelivered, "result") + " not handed to the delegate") }
        guard !parts.isEmpty else { return nil }
        let seconds = ExitDrain.bound.components.seconds
        return "anna: the process ended before its analytics were saved: \(parts.joined(separator: ", ")) "
            + "(the drain at exit waits at most \(seconds) s); await manager.flush() before the process ends"
    }
}
