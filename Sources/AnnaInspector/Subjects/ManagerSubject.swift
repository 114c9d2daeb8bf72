import Anna
import CoreJS

/// A running ``/Anna/Manager`` as an inspector sees it (held weakly: the manager holds its inspector).
final class ManagerSubject: InspectedSubject {
    private final class WeakManager: @unchecked Sendable {
        weak var manager: Manager?
        init(_ manager: Manager) { self.manager = manager }
    }

    private let reference: WeakManager
    private let debug: Locked<Bool>

    init(_ manager: Manager) {
        reference = WeakManager(manager)
        debug = Locked(manager.dependency.debug)
    }

    private func manager() throws -> Manager {
        guard let manager = reference.manager else { throw InspectorError.subjectGone }
        return manager
    }

    func snapshot(format: SnapshotFormat) async throws -> String { try await manager().snapshot(format: format) }
    func coverage() async throws -> Coverage { try await manager().coverage() }
    func disabledTaskFiles() async throws -> [String] { try await manager().disabledTaskFiles() }
    func setTaskFile(_ file: String, enabled: Bool) async throws { try await manager().setTaskFile(file, enabled: enabled) }
    func reloadTaskFiles() async throws { try await manager().reloadTaskFiles() }

    func setDebug(_ debug: Bool) async throws {
        try await manager().setDebug(debug)
        self.debug.withLock { $0 = debug }
    }

    var isDebug: Bool { debug.withLock { $0 } }

    func setPaused(_ paused: Bool) async throws {
        let manager = try manager()
        if paused { manager.pause() } else { manager.resume() }
    }

    var isPaused: Bool { reference.manager?.isPaused ?? false }
    var queueDepth: Int { reference.manager?.queuedOperationCount ?? 0 }
    var eventCount: Int? { reference.manager?.eventCount }
    func heapBytes() async throws -> Int? { try await manager().heapBytes() }
    var playback: (any StreamPlayback)? { nil }
}
