import Anna
import CoreJS
import Dispatch
import Foundation
import Synchronization

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

/// Collects what a manager delivers, and on which queue.
final class RecordingDelegate: ManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var storedResults: [AnalyticsResult] = []
    private var storedErrors: [any Error] = []
    private var storedQueueLabels: Set<String> = []
    static let queueKey = DispatchSpecificKey<String>()

    var results: [AnalyticsResult] { lock.withLock { storedResults } }
    /// The labels (``queueKey``) of the queues results arrived on.
    var queueLabels: Set<String> { lock.withLock { storedQueueLabels } }
    var values: [JSONValue] { results.map(\.value) }
    var errors: [any Error] { lock.withLock { storedErrors } }

    func manager(_ manager: Manager, didSend result: AnalyticsResult) {
        lock.withLock {
            storedResults.append(result)
            storedQueueLabels.insert(DispatchQueue.getSpecific(key: Self.queueKey) ?? "unknown")
        }
    }

    func manager(_ manager: Manager, didCatch error: any Error) {
        lock.withLock { storedErrors.append(error) }
    }
}

/// An in-memory analytics module on top of the bundled core.
func moduleFiles(tasks: String, extra: [String: String] = [:]) -> OverlayFiles {
    var files = [
        "/m/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' })",
        "/m/task/index.js": tasks,
    ]
    files.merge(extra) { _, new in new }
    return OverlayFiles(InMemoryFileAccess(files))
}
