import Anna
import AnnaKit
import Testing

/// Focus: a control that fires or a row that is selected becomes the parent of the screen it
/// opens.
@MainActor
@Suite("Focus")
struct FocusTests {
    @Test("a detail pushed by a button hangs under the button")
    func fromButton() async throws {
        let harness = Harness()
        let master = MasterViewController()
        let navigation = harness.showInNavigation(master)

        master.more.tap()
        let detail = try #require(navigation.topViewController as? DetailViewController)
        detail.button.tap()

        let traces = await harness.traces().filter { $0.path.contains("detail") || $0.event == "touch-up-inside" }
        #expect(
            traces == [
                Trace("touch-up-inside", "/master/more"),
                Trace("ana-appeared", "/master/more/detail/button"),
                Trace("ana-appeared", "/master/more/detail"),
                Trace("touch-up-inside", "/master/more/detail/button"),
            ])
        let results = await harness.results()
        #expect(results.last?.value == ["action": "detail-button", "from": "/master/more"])
    }

    @Test("each selected row is the parent of the detail it opens")
    func fromRows() async throws {
        let harness = Harness()
        let master = MasterViewController(rows: 10, visibleRows: 3)
        let navigation = harness.showInNavigation(master)

        master.table.selectRow(at: TableIndexPath(row: 2))
        navigation.popViewController()
        master.table.selectRow(at: TableIndexPath(row: 0))

        let details = await harness.traces().filter { $0.path.hasSuffix("/detail") }
        #expect(
            details == [
                Trace("ana-appeared", "/master/table/cell/detail"),
                Trace("ana-disappeared", "/master/table/cell/detail"),
                Trace("ana-appeared", "/master/table/cell/detail"),
            ])
        let nodes = try await harness.nodes().map(\.description)
        // The popped detail is gone with its controller; the new one hangs under row 0.
        #expect(nodes.filter { $0.contains("detail") } == ["/master/table/cell/detail", "/master/table/cell/detail/button"])
        let parentOfDetail = try #require(nodes.firstIndex(of: "/master/table/cell/detail"))
        #expect(nodes[parentOfDetail - 1] == "/master/table/cell#0")
    }

    @Test("a screen opened without a tap hangs where the responder chain says")
    func withoutFocus() async throws {
        let harness = Harness()
        let master = MasterViewController()
        let navigation = harness.showInNavigation(master)

        navigation.pushViewController(DetailViewController())

        let appeared = await harness.traces().filter { $0.event == "ana-appeared" && $0.path.contains("detail") }
        #expect(
            appeared == [
                Trace("ana-appeared", "/master/detail/button"),
                Trace("ana-appeared", "/master/detail"),
            ])
    }
}
