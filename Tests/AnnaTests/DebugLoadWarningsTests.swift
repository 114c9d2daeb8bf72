import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@testable import Anna

@Suite("Debug mode logs a task file never loaded beside a namespace without one, once", .timeLimit(.minutes(5)))
struct DebugLoadWarningsTests {
    /// A module on disk with `NoteDetail.js` while the class is now `NoteDetailViewController`.
    static func renamedModule() throws -> TemporaryFolder {
        try TemporaryFolder([
            "m/index.js": moduleIndex,
            "m/task/index.js": "match('tap', () => 1)",
            "m/task/NoteDetail.js": "match('tap', () => 'detail')",
        ])
    }

    /// Registers the root, then nodes with `namespaces` (one each, in order), on a manager
    /// logging to `log`.
    static func register(_ namespaces: [String], in folder: TemporaryFolder, debug: Bool, log: CapturedLog) async {
        var dependency = Manager.Dependency(debug: debug, standardOutput: MemoryOutputSink())
        dependency.logger = log.logger
        let manager = Manager(moduleURL: folder.url.appendingPathComponent("m"), dependency: dependency)
        manager.send(.register(id: NodeID(1), parent: nil, name: "__root__", index: nil, namespace: nil, attributes: nil))
        for (offset, namespace) in namespaces.enumerated() {
            manager.send(
                .register(id: NodeID(offset + 2), parent: NodeID(1), name: "screen", index: offset, namespace: namespace, attributes: nil))
            await manager.flush()  // each in a chunk of its own
        }
        await manager.flush()
    }

    /// The warnings about task files (other tests' debug managers hear of waiting events too).
    static func loadWarnings(_ log: CapturedLog) -> [String] {
        log.messages(at: .warning).filter { $0.contains("never loaded") || $0.contains("task file") }
    }

    @Test("the renamed class: one warning naming the file and the namespace, however often the node registers")
    func renamedClass() async throws {
        let folder = try Self.renamedModule()
        let log = CapturedLog()
        await Self.register(["NoteDetailViewController", "NoteDetailViewController", "Other"], in: folder, debug: true, log: log)
        #expect(Self.loadWarnings(log) == ["NoteDetail.js never loaded; namespace NoteDetailViewController has no file: renamed?"])
    }

    @Test("a namespace with its file says nothing; outside debug mode nothing is checked")
    func quietOtherwise() async throws {
        let folder = try Self.renamedModule()
        let loaded = CapturedLog()
        await Self.register(["NoteDetail"], in: folder, debug: true, log: loaded)
        #expect(Self.loadWarnings(loaded) == [])
        let release = CapturedLog()
        await Self.register(["NoteDetailViewController"], in: folder, debug: false, log: release)
        #expect(Self.loadWarnings(release) == [])
    }
}
