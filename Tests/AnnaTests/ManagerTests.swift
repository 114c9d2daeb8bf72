import Anna
import CoreJS
import Dispatch
import Foundation
import Testing

@Suite("Manager, analyzers and focus paths with plain host objects", .timeLimit(.minutes(1)))
struct ManagerTests {
    let output = MemoryOutputSink()

    func manager(tasks: String, debug: Bool = false, extra: [String: String] = [:]) -> (Manager, RecordingDelegate) {
        let manager = Manager(
            moduleURL: URL(fileURLWithPath: "/m"),
            dependency: .init(debug: debug, fileManager: moduleFiles(tasks: tasks, extra: extra), standardOutput: output))
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        return (manager, delegate)
    }

    @Test("results reach the delegate on its queue, in the order events were recorded")
    func delegateQueue() async throws {
        let (manager, delegate) = manager(tasks: "match('tap', (node) => node.path + '#' + node.latestEvent().attributes.n)")
        let queue = DispatchQueue(label: "custom")
        queue.setSpecific(key: RecordingDelegate.queueKey, value: "custom")
        manager.delegateQueue = queue
        let app = HostApplication(manager: manager)
        let screen = retained(ChainLink(next: app))
        screen.enable(naming: "screen")
        for n in 1...4 { screen.record("tap", with: ["n": .number(Double(n))]) }
        await manager.flush()
        #expect(delegate.values == ["/screen#1", "/screen#2", "/screen#3", "/screen#4"])
        #expect(delegate.queueLabels == ["custom"])
        withExtendedLifetime(app) {}
    }

    @Test("a detached root registers the tree again on next use; detach drops waiting events")
    func rootAfterDetach() async throws {
        let (manager, delegate) = manager(tasks: "match('tap', (node) => node.path)")
        let app = HostApplication(manager: manager)
        let screen = retained(ChainLink(next: app))
        screen.enable(naming: "screen")
        screen.record("tap")
        app.analyzer.detach()
        let again = retained(ChainLink(next: app))
        again.enable(naming: "again")
        again.record("tap")
        let orphan = retained(ChainLink(next: nil))
        orphan.enable(naming: "orphan")
        orphan.record("tap")
        orphan.detach()
        await manager.flush()
        #expect(delegate.values == ["/screen", "/again"])
        #expect(delegate.errors.isEmpty)
    }

    @Test("events recorded before the node can register are delivered once it does")
    func eventsBeforeRegistration() async throws {
        let (manager, delegate) = manager(tasks: "match('screen/tap', (node) => node.latestEvent().attributes.n)")
        let app = HostApplication(manager: manager)
        let link = ChainLink(next: nil)
        let screen = Analyzer(owner: link)
        screen.enable(naming: "screen")
        screen.record("tap", with: ["n": 1])
        screen.record("tap", with: ["n": 2])
        await manager.flush()
        #expect(delegate.values.isEmpty)
        link.next = app
        screen.record("tap", with: ["n": 3])
        await manager.flush()
        #expect(delegate.values == [1, 2, 3])
        #expect(screen.registeredNodeID != nil)
        withExtendedLifetime(link) {}
    }

    @Test("sub-analyzers: keyed children, indexed arrays and subAnalyzableKeys")
    func subAnalyzers() async throws {
        let (manager, delegate) = manager(tasks: "match('tap', (node) => ({ path: node.path, index: node.index }))")
        let app = HostApplication(manager: manager)
        let screen = HostScreen(parent: app)
        let rows = [HostObject(), HostObject(), HostObject()]
        screen.analyzer.enable(naming: "screen")
        screen.table.analyzer.setSubAnalyzers(rows.map(\.analyzer), for: "row")
        let section = (screen.table.analyzer as! Analyzer).keyedSubAnalyzer(for: "section", index: 1)
        section.record("tap")
        rows[2].analyzer.record("tap")
        screen.table.analyzer.record("tap")
        await manager.flush()
        #expect(delegate.values == [
            ["path": "/screen/table/section", "index": 1],
            ["path": "/screen/table/row", "index": 2],
            ["path": "/screen/table", "index": nil],
        ])
        let tableID = try #require((screen.table.analyzer as! Analyzer).registeredNodeID)
        #expect(section.registeredNodeID == tableID.appending(.name("section")).appending(.index(1)))
    }

    @Test("focus: an analyzer enabled after another was focused hangs under it")
    func focus() async throws {
        let (manager, delegate) = manager(tasks: "match('appear', (node) => node.path)")
        let app = HostApplication(manager: manager)
        let masterLink = ChainLink(next: app)
        let masterAnalyzer = Analyzer(owner: masterLink)
        masterAnalyzer.enable(naming: "master")
        let cell = HostObject()
        masterAnalyzer.setSubAnalyzer(cell.analyzer, for: "cell", index: 0)
        cell.analyzer.markFocused()
        // The detail's chain leads to master; master is an ancestor of the focused cell.
        let detail = retained(ChainLink(next: masterLink))
        detail.enable(naming: "detail")
        detail.record("appear")
        // Analyzers whose chain parent is not an ancestor of the focus stay where they are.
        let other = retained(ChainLink(next: ChainLinkWith(analyzer: detail)))
        other.enable(naming: "other")
        other.record("appear")
        await manager.flush()
        #expect(delegate.values == ["/master/cell/detail", "/master/cell/detail/other"])
        // Analyzers hold their owners (and the root its focus) weakly: keep them to the end.
        withExtendedLifetime((cell, masterLink)) {}
    }

    @Test("moving a sub to another index re-registers it; detach and deinit deregister")
    func reuseAndDetach() async throws {
        let (manager, delegate) = manager(tasks: "match('show', (node) => node.index)")
        let app = HostApplication(manager: manager)
        let list = retained(ChainLink(next: app))
        list.enable(naming: "list")
        let cell = HostObject()
        list.setSubAnalyzer(cell.analyzer, for: "cell", index: 0)
        cell.analyzer.record("show")
        list.setSubAnalyzer(cell.analyzer, for: "cell", index: 7)
        cell.analyzer.record("show")
        await manager.flush()
        #expect(delegate.values == [0, 7])
        let snapshot = try await manager.snapshot(format: .markup)
        #expect(snapshot.components(separatedBy: "<cell ").count == 2, "one cell node, not two")

        cell.analyzer.detach()
        var transient: HostObject? = HostObject()
        list.setSubAnalyzer(transient!.analyzer, for: "temp", index: nil)
        transient!.analyzer.record("show")
        transient = nil
        let after = try await manager.snapshot(format: .markup)
        #expect(!after.contains("<cell "))
        #expect(!after.contains("<temp "))
        #expect(after.contains("<list "))
    }

    @Test("observed values record ana-updated with first-displayed semantics")
    func observation() async throws {
        let (manager, delegate) = manager(tasks: """
            match('label/ana-updated', (node) => ({
              value: node.latestValue('text'),
              shownBy: (node.valueFirstDisplayedEvent('text') || {}).nodeName || null,
            }));
            """)
        let app = HostApplication(manager: manager)
        let label = retained(ChainLink(next: app))
        label.enable(naming: "label")
        let text = ObservableValue("draft")
        label.observe(text, for: "text")
        label.record("ana-appeared")
        text.value = "final"
        text.value = "final"
        label.detach()
        text.value = "after detach"
        await manager.flush()
        // Assigning the same value again is recorded too; the core keeps the first display.
        #expect(delegate.values == [
            ["value": "draft", "shownBy": nil],
            ["value": "final", "shownBy": "ana-updated"],
            ["value": "final", "shownBy": "ana-updated"],
        ])
    }

    @Test("module errors reach didCatch and the errors stream; debug mode retries after a fix, losing nothing")
    func loadErrors() async throws {
        final class SwitchableFiles: FileAccess, @unchecked Sendable {
            let lock = NSLock()
            var broken = true
            func current() -> OverlayFiles {
                let index = lock.withLock { broken }
                    ? "const broken = ;\nmodule.exports = require('anna').configured({ task: __dirname + '/task' })"
                    : "module.exports = require('anna').configured({ task: __dirname + '/task' })"
                return OverlayFiles(InMemoryFileAccess(["/m/index.js": index, "/m/task/index.js": "match('tap', (node) => node.path)"]))
            }
            func readFile(atPath path: String) throws -> String { try current().readFile(atPath: path) }
            func fileExists(atPath path: String) -> Bool { current().fileExists(atPath: path) }
            func isDirectory(atPath path: String) -> Bool { current().isDirectory(atPath: path) }
            func canonicalPath(_ path: String) -> String { current().canonicalPath(path) }
        }
        let files = SwitchableFiles()
        let manager = Manager(
            moduleURL: URL(fileURLWithPath: "/m"), dependency: .init(debug: true, fileManager: files, standardOutput: output))
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        let errors = manager.errors()
        let app = HostApplication(manager: manager)
        let screen = retained(ChainLink(next: app))
        screen.enable(naming: "screen")
        screen.record("tap")
        await manager.flush()
        let first = try #require(delegate.errors.first as? AnalyticsError)
        guard case let .moduleLoadFailed(module, cause) = first else {
            Issue.record("expected moduleLoadFailed, got \(first)")
            return
        }
        #expect(module == "/m")
        #expect(cause.exception?.name == "SyntaxError")
        #expect(cause.exception?.location?.hasPrefix("/m/index.js:1") == true)
        var iterator = errors.makeAsyncIterator()
        #expect(await iterator.next() != nil)

        files.lock.withLock { files.broken = false }
        let detail = retained(ChainLink(next: app))
        detail.enable(naming: "detail")
        detail.record("tap")
        await manager.flush()
        #expect(delegate.values == ["/screen", "/detail"])
    }

    @Test("a task file that fails to load is reported with its file and line")
    func taskFileErrors() async throws {
        let (manager, delegate) = manager(tasks: "match('tap', () => 1);\nmatch('tap', () => );\n")
        let app = HostApplication(manager: manager)
        let screen = retained(ChainLink(next: app))
        screen.enable(naming: "screen")
        await manager.flush()
        let error = try #require(delegate.errors.first as? AnalyticsError)
        #expect(error.exception?.name == "LoadError")
        #expect(error.exception?.location?.hasPrefix("/m/task/index.js:2") == true)
    }

    @Test("many threads recording at once: every result arrives, each thread's in order")
    func concurrentRecording() async throws {
        let (manager, delegate) = manager(tasks: "match('tick', (node) => ({ thread: node.nodeName, n: node.latestEvent().attributes.n }))")
        let app = HostApplication(manager: manager)
        let analyzers = (0..<8).map { index -> Analyzer in
            let analyzer = retained(ChainLink(next: app))
            analyzer.enable(naming: "t\(index)")
            return analyzer
        }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for n in 0..<250 { analyzers[thread].record("tick", with: ["n": .number(Double(n))]) }
        }
        await manager.flush()
        let values = delegate.values
        #expect(values.count == 2000)
        for thread in 0..<8 {
            let sequence = values.filter { $0["thread"] == .string("t\(thread)") }.compactMap { $0["n"]?.numberValue }
            #expect(sequence == (0..<250).map(Double.init))
        }
    }

    @Test("results also arrive as an async sequence, with meta")
    func resultStream() async throws {
        let (manager, _) = manager(tasks: "match('/screen/tap', () => 'hit')")
        let results = manager.results()
        let app = HostApplication(manager: manager)
        let screen = retained(ChainLink(next: app))
        screen.enable(naming: "screen")
        screen.record("tap")
        var iterator = results.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == AnalyticsResult(value: "hit", meta: ResultMeta(task: "/screen/tap", path: "/screen", event: "tap")))
    }

    @Test("logSnapshot writes the markup to standardOutput; snapshot(format:) returns it")
    func snapshots() async throws {
        let (manager, _) = manager(tasks: "")
        let app = HostApplication(manager: manager)
        let screen = retained(ChainLink(next: app))
        screen.enable(naming: "screen")
        manager.logSnapshot()
        let markup = try await manager.snapshot()
        #expect(output.text == markup + "\n")
        #expect(markup.contains("<screen id="))
        let json = try JSONValue(parsing: try await manager.snapshot(format: .json))
        #expect(json["root"]?["children"]?[0]?["name"] == "screen")
    }
}

/// Owners kept alive for the whole test run (analyzers hold their owner weakly).
nonisolated(unsafe) private var retainedOwners: [AnyObject] = []
private let retainedOwnersLock = NSLock()

/// An analyzer whose owner `link` is kept alive.
func retained(_ link: ChainLink) -> Analyzer {
    retainedOwnersLock.withLock { retainedOwners.append(link) }
    return Analyzer(owner: link)
}

/// A responder that only links to the next one (and may stand for an analyzer).
final class ChainLink: Responder, FocusPathConstituting, @unchecked Sendable {
    var next: (any Responder)?
    init(next: (any Responder)?) { self.next = next }
    var nextResponder: (any Responder)? { next }
}

/// A chain object whose analyzer is an existing one.
final class ChainLinkWith: Responder, Analyzable, @unchecked Sendable {
    let analyzer: any Analyzing
    init(analyzer: Analyzer) { self.analyzer = analyzer }
    var nextResponder: (any Responder)? { nil }
}
