import Anna
import AnnaKit
import Testing

/// Keyed and indexed sub-analyzers of kit objects.
@MainActor
@Suite("Sub-analyzers")
struct SubAnalyzerTests {
    @Test("an array of sub-analyzers gives each child its index")
    func indexed() async throws {
        let harness = Harness()
        let screen = ScreenViewController(name: "screen")
        let toolbar = View()
        let items = (0..<3).map { Button(title: "Item \($0)") }
        items.forEach(toolbar.addSubview)
        screen.view.addSubview(toolbar)
        screen.analyzer.setSubAnalyzer(toolbar.analyzer, for: "toolbar")
        toolbar.analyzer.setSubAnalyzers(items.map(\.analyzer), for: "item")
        harness.show(screen)

        items[2].tap()

        #expect(
            await harness.traces() == [
                // UIKit's order: the views first, the controller once they are in place.
                Trace("ana-appeared", "/screen/toolbar"),
                Trace("ana-appeared", "/screen/toolbar/item", 0),
                Trace("ana-appeared", "/screen/toolbar/item", 1),
                Trace("ana-appeared", "/screen/toolbar/item", 2),
                Trace("ana-appeared", "/screen"),
                Trace("touch-up-inside", "/screen/toolbar/item", 2),
            ])
    }

    @Test("an analyzable object's array key adds indexed children when it is enabled")
    func analyzableObjectMany() async throws {
        let harness = Harness()
        let screen = ScreenViewController(name: "screen")
        let tabs = TabBar(count: 2)
        screen.view.addSubview(tabs)
        tabs.analyzer.enable(naming: "tabs")
        harness.show(screen)

        tabs.tabs[1].tap()

        #expect(
            await harness.traces().suffix(3) == [
                Trace("ana-appeared", "/screen/tabs/tab", 1),
                Trace("ana-appeared", "/screen"),
                Trace("touch-up-inside", "/screen/tabs/tab", 1),
            ])
        #expect(
            try await harness.nodes().map(\.description) == [
                "/screen", "/screen/tabs", "/screen/tabs/tab#0", "/screen/tabs/tab#1",
            ])
    }

    @Test("a keyed sub-analyzer is a node without an object, found again by its key")
    func keyed() async throws {
        let harness = Harness()
        let screen = harness.showScreen(named: "screen")
        let analyzer = try #require(screen.analyzer as? Analyzer)

        let header = analyzer.keyedSubAnalyzer(for: "header")
        let slot = analyzer.keyedSubAnalyzer(for: "slot", index: 1)
        #expect(analyzer.keyedSubAnalyzer(for: "header") === header)
        #expect(analyzer.keyedSubAnalyzer(for: "slot", index: 2) !== slot)
        header.record("ping")
        slot.record("ping")

        #expect(await harness.traces().suffix(2) == [Trace("ping", "/screen/header"), Trace("ping", "/screen/slot", 1)])
        let nodes = try await harness.nodes()
        let screenID = try #require(nodes.first?.id)
        #expect(nodes.map(\.id) == [screenID, "\(screenID)/header", "\(screenID)/slot/1", "\(screenID)/slot/2"])
    }

    @Test("a sub-analyzer removed from its parent loses its node; what it records waits for its next parent")
    func removedFromParent() async throws {
        let harness = Harness()
        let screen = ScreenViewController(name: "screen")
        let items = (0..<2).map { Button(title: "Item \($0)") }
        items.forEach(screen.view.addSubview)
        screen.analyzer.setSubAnalyzers(items.map(\.analyzer), for: "item")
        harness.show(screen)
        let removed = try #require(items[1].analyzer as? Analyzer)

        removed.removeFromParent()
        items[1].tap()
        #expect(removed.registeredNodeID == nil)
        #expect(try await harness.nodes().map(\.path) == ["/screen", "/screen/item"])
        #expect(await harness.traces().last == Trace("ana-appeared", "/screen"))

        (screen.analyzer as? Analyzer)?.setSubAnalyzer(removed, for: "item", index: 5)
        #expect(try await harness.nodes().map(\.index) == [nil, 0, 5])
        #expect(
            await harness.traces() == [
                Trace("ana-appeared", "/screen/item", 0),
                Trace("ana-appeared", "/screen/item", 1),
                Trace("ana-appeared", "/screen"),
                Trace("touch-up-inside", "/screen/item", 5),
            ])
    }
}

/// A bar of tab buttons, added as the indexed sub-analyzers `tab`.
final class TabBar: View, AnalyzableObject {
    nonisolated static let subAnalyzableKeys: Set<String> = ["tab"]
    nonisolated let tabs: [Button]

    init(count: Int) {
        tabs = (0..<count).map { Button(title: "Tab \($0)") }
        super.init()
        tabs.forEach(addSubview)
    }

    nonisolated func subAnalyzable(for key: String) -> SubAnalyzable? {
        key == "tab" ? .many(tabs) : nil
    }
}
