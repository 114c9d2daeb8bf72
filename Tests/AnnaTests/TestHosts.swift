import Anna
import AnnaTestSupport
import CoreJS
import Dispatch
import Foundation

/// A minimal host object: a node in a responder chain with an analyzer.
final class HostObject: Responder, Analyzable, @unchecked Sendable {
    weak var parent: HostObject?
    var nextResponder: (any Responder)? { parent }
    lazy var analyzer: any Analyzing = Analyzer.analyzer(with: self)
    init(parent: HostObject? = nil) { self.parent = parent }
}

/// The application object at the top of a chain, owning the root analyzer.
final class HostApplication: Responder, Analyzable, @unchecked Sendable {
    var nextResponder: (any Responder)? { nil }
    let analyzer: any Analyzing
    init(manager: Manager) { analyzer = RootAnalyzer(manager: manager) }
}

/// A screen whose table is a sub-analyzable (the reference's `subAnalyzableKeys`).
final class HostScreen: Responder, AnalyzableObject, @unchecked Sendable {
    static let subAnalyzableKeys: Set<String> = ["table"]
    weak var parent: (any Responder)?
    var nextResponder: (any Responder)? { parent }
    lazy var analyzer: any Analyzing = Analyzer.analyzer(with: self)
    let table = HostObject()
    init(parent: any Responder) {
        self.parent = parent
    }
    func subAnalyzable(for key: String) -> SubAnalyzable? {
        key == "table" ? .one(table) : nil
    }
}

/// The `index.js` of the in-memory module at `/m`: the bundled core with the tasks in `/m/task`.
let moduleIndex = "module.exports = require('anna').configured({ task: __dirname + '/task' })"

/// An in-memory analytics module at `/m` on top of the bundled core: `tasks` in
/// `task/index.js`, and `extra` files (by absolute path; they may replace the two above).
func moduleFiles(tasks: String, extra: [String: String] = [:]) -> OverlayFiles {
    var files = ["/m/index.js": moduleIndex, "/m/task/index.js": tasks]
    files.merge(extra) { _, new in new }
    return OverlayFiles(InMemoryFileAccess(files))
}

/// An engine on the in-memory module of ``moduleFiles(tasks:extra:)``, its console output
/// kept in memory.
func moduleEngine(tasks: String, extra: [String: String] = [:], limit: Double = 2) throws -> AnalyticsEngine {
    try AnalyticsEngine(
        configuration: .init(
            moduleURL: URL(fileURLWithPath: "/m"), executionTimeLimit: .seconds(limit), fileAccess: moduleFiles(tasks: tasks, extra: extra),
            console: Console(output: MemoryOutputSink())))
}

/// Files from memory first, then the disk (for the bundled core). A test may change the files
/// in memory (``write(_:to:)``) while a runtime reads them.
final class OverlayFiles: FileAccess {
    private let memory: Locked<InMemoryFileAccess>
    private let disk = LocalFileAccess()

    init(_ memory: InMemoryFileAccess) {
        self.memory = Locked(memory)
    }

    /// Replaces the in-memory file at `path` with `contents` (or adds it).
    func write(_ contents: String, to path: String) {
        memory.withLock { files in
            files = InMemoryFileAccess(files.files.merging([path: contents]) { _, new in new })
        }
    }

    private var current: InMemoryFileAccess {
        memory.withLock { $0 }
    }

    func readFile(atPath path: String) throws -> String {
        let memory = current
        return memory.fileExists(atPath: path) ? try memory.readFile(atPath: path) : try disk.readFile(atPath: path)
    }

    func fileExists(atPath path: String) -> Bool { current.fileExists(atPath: path) || disk.fileExists(atPath: path) }
    func isDirectory(atPath path: String) -> Bool { current.isDirectory(atPath: path) || disk.isDirectory(atPath: path) }
    func canonicalPath(_ path: String) -> String { current.fileExists(atPath: path) ? path : disk.canonicalPath(path) }
}
