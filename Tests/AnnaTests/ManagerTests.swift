import Anna
import AnnaTestSupport
import CoreJS
import Dispatch
import Foundation
import Testing

@Suite("Manager, analyzers and focus paths with plain host objects", .timeLimit(.minutes(5)))
struct ManagerTests {
    let output = MemoryOutputSink()

    /// A manager on the in-memory module at `/m` (`files`, by default one with `tasks` in
    /// `task/index.js`), the delegate collecting its results and errors, and an application
    /// owning its root analyzer.
    func manager(
        tasks: String = "", files: OverlayFiles? = nil, debug: Bool = false
    ) -> (Manager, RecordingDelegate, HostApplication) {
        let manager = Manager(
            moduleURL: URL(fileURLWithPath: "/m"),
            dependency: .init(debug: debug, fileAccess: files ?? moduleFiles(tasks: tasks), standardOutput: output))
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        return (manager, delegate, HostApplication(manager: manager))
    }

    @Test("results reach the delegate on its queue, in the order events were recorded")
    func delegateQueue() async throws {
        let (manager, delegate, app) = manager(tasks: "match('tap', (node) => node.path + '#' + node.latestEvent().attributes.n)")
        let queue = DispatchQueue(label: "custom")
        queue.setSpecific(key: RecordingDelegate.queueKey, value: "custom")
        manager.delegateQueue = queue
        let screen = app.screen(named: "screen")
        for n in 1...4 { screen.record("tap", with: ["n": .number(Double(n))]) }
        await manager.flush()
        #expect(delegate.values == ["/screen#1", "/screen#2", "/screen#3", "/screen#4"])
        #expect(Set(delegate.queueLabels) == ["custom"])
    }

    @Test("a detached root registers the tree again on next use; detach drops waiting events")
    func rootAfterDetach() async throws {
        let (manager, delegate, app) = manager(tasks: "match('tap', (node) => node.path)")
        let screen = app.screen(named: "screen")
        screen.record("tap")
        app.analyzer.detach()
        let again = app.screen(named: "again")
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
        let (manager, delegate, app) = manager(tasks: "match('screen/tap', (node) => node.latestEvent().attributes.n)")
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
        let (manager, delegate, app) = manager(tasks: "match('tap', (node) => ({ path: node.path, index: node.index }))")
        let screen = HostScreen(parent: app)
        let rows = [HostObject(), HostObject(), HostObject()]
        screen.analyzer.enable(naming: "screen")
        screen.table.analyzer.setSubAnalyzers(rows.map(\.analyzer), for: "row")
        let section = (screen.table.analyzer as! Analyzer).keyedSubAnalyzer(for: "section", index: 1)
        section.record("tap")
        rows[2].analyzer.record("tap")
        screen.table.analyzer.record("tap")
        await manager.flush()
        #expect(
            delegate.values == [
                ["path": "/screen/table/section", "index": 1],
                ["path": "/screen/table/row", "index": 2],
                ["path": "/screen/table", "index": nil],
            ])
        let tableID = try #require((screen.table.analyzer as! Analyzer).registeredNodeID)
        #expect(section.registeredNodeID == tableID.appending(.name("section")).appending(.index(1)))
    }

    @Test("focus: an analyzer enabled after another was focused hangs under it")
    func focus() async throws {
        let (manager, delegate, app) = manager(tasks: "match('appear', (node) => node.path)")
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
        let (manager, delegate, app) = manager(tasks: "match('show', (node) => node.index)")
        let list = app.screen(named: "list")
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
        let (manager, delegate, app) = manager(
            tasks: """
                match('label/ana-updated', (node) => ({
                  value: node.latestValue('text'),
                  shownBy: (node.valueFirstDisplayedEvent('text') || {}).nodeName || null,
                }));
                """)
        let label = app.screen(named: "label")
        let text = ObservableValue("draft")
        label.observe(text, for: "text")
        label.record("ana-appeared")
        text.value = "final"
        text.value = "final"
        label.detach()
        text.value = "after detach"
        await manager.flush()
        // Assigning the same value again records nothing, as the reference's key-value observer.
        #expect(
            delegate.values == [
                ["value": "draft", "shownBy": nil],
                ["value": "final", "shownBy": "ana-updated"],
            ])
    }

    @Test("module errors reach didCatch and the errors stream; debug mode retries after a fix, losing nothing")
    func loadErrors() async throws {
        let files = moduleFiles(tasks: "match('tap', (node) => node.path)", extra: ["/m/index.js": "const broken = ;\n" + moduleIndex])
        let (manager, delegate, app) = manager(files: files, debug: true)
        let errors = manager.errors()
        let screen = app.screen(named: "screen")
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

        files.write(moduleIndex, to: "/m/index.js")
        let detail = app.screen(named: "detail")
        detail.record("tap")
        await manager.flush()
        #expect(delegate.values == ["/screen", "/detail"])
    }

    @Test("a task file that fails to load is reported with its file and line")
    func taskFileErrors() async throws {
        let (manager, delegate, app) = manager(tasks: "match('tap', () => 1);\nmatch('tap', () => );\n")
        let screen = app.screen(named: "screen")
        await manager.flush()
        let error = try #require(delegate.errors.first as? AnalyticsError)
        #expect(error.exception?.name == "LoadError")
        #expect(error.exception?.location?.hasPrefix("/m/task/index.js:2") == true)
        withExtendedLifetime(screen) {}
    }

    @Test("many threads recording at once: every result arrives, each thread's in order")
    func concurrentRecording() async throws {
        let (manager, delegate, app) = manager(tasks: "match('tick', (node) => ({ thread: node.nodeName, n: node.latestEvent().attributes.n }))")
        let analyzers = (0..<8).map { index -> Analyzer in
            app.screen(named: "t\(index)")
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
        let (manager, _, app) = manager(tasks: "match('/screen/tap', () => 'hit')")
        let results = manager.results()
        let screen = app.screen(named: "screen")
        let before = (Date().timeIntervalSince1970 * 1000).rounded(.down)
        screen.record("tap")
        let after = (Date().timeIntervalSince1970 * 1000).rounded(.up)
        var iterator = results.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.value == "hit" && first.meta == ResultMeta(task: "/screen/tap", path: "/screen", event: "tap"))
        // Stamped when the event was recorded, not when it was delivered.
        #expect(first.time.map { $0 >= before && $0 <= after } == true, "\(String(describing: first.time)) not in \(before)...\(after)")
    }

    @Test("logSnapshot writes the markup to standardOutput; snapshot(format:) returns it")
    func snapshots() async throws {
        let (manager, _, app) = manager()
        let screen = app.screen(named: "screen")
        manager.logSnapshot()
        let markup = try await manager.snapshot()
        #expect(output.text == markup + "\n")
        #expect(markup.contains("<screen id="))
        let json = try JSONValue(parsing: try await manager.snapshot(format: .json))
        #expect(json["root"]?["children"]?[0]?["name"] == "screen")
        withExtendedLifetime(screen) {}  // its node goes when it does
    }
}

/// Owners kept alive for the whole test run (analyzers hold their owner weakly).
nonisolated(unsafe) private var retainedOwners: [AnyObject] = []
private let retainedOwnersLock = NSLock()

extension HostApplication {
    /// An analyzer enabled as `name` whose owner (kept alive for the run) links to the application.
    func screen(named name: String) -> Analyzer {
        let analyzer = retained(ChainLink(next: self))
        analyzer.enable(naming: name)
        return analyzer
    }
}

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
