import Anna
import AnnaKit
import Testing

/// The reference README's tree, end to end through task scripts:
/// `/master/table/cell/detail/button`.
@MainActor
@Suite("The reference README's tree")
struct ReferenceTreeTests {
    @Test("a tap in a detail pushed from a selected cell has the path /master/table/cell/detail/button")
    func detailFromCell() async throws {
        let harness = Harness()
        let master = MasterViewController(rows: 10, visibleRows: 3)
        let navigation = harness.showInNavigation(master)

        #expect(master.table.selectRow(at: TableIndexPath(row: 1)))
        let detail = try #require(navigation.topViewController as? DetailViewController)
        detail.button.tap()

        #expect(
            await harness.traces() == [
                // UIKit's order: the views and the table's rows, then the controller.
                Trace("ana-appeared", "/master/table"),
                Trace("ana-appeared", "/master/table/cell", 0),
                Trace("ana-appeared", "/master/table/cell", 1),
                Trace("ana-appeared", "/master/table/cell", 2),
                Trace("ana-appeared", "/master/more"),
                Trace("ana-appeared", "/master"),
                Trace("did-select", "/master/table/cell", 1),
                // The master leaves the screen: subviews first, the controller last.
                Trace("ana-disappeared", "/master/table/cell", 0),
                Trace("ana-disappeared", "/master/table/cell", 1),
                Trace("ana-disappeared", "/master/table/cell", 2),
                Trace("ana-disappeared", "/master/table"),
                Trace("ana-disappeared", "/master/more"),
                Trace("ana-disappeared", "/master"),
                Trace("ana-appeared", "/master/table/cell/detail/button"),
                Trace("ana-appeared", "/master/table/cell/detail"),
                Trace("touch-up-inside", "/master/table/cell/detail/button"),
            ])
        let results = await harness.results()
        #expect(
            results.filter { $0.meta?.task == "master/table/cell/did-select" }.map(\.value) == [
                ["action": "selected", "id": "/master/table/cell", "row": 1]
            ])
        #expect(
            results.filter { $0.meta?.task == "master/table/cell/detail/button/touch-up-inside" }.map(\.value) == [
                ["action": "detail-button", "from": "/master/table/cell", "row": 1]
            ])
        let meta = try #require(results.last?.meta)
        #expect(
            meta
                == ResultMeta(
                    task: "master/table/cell/detail/button/touch-up-inside",
                    path: "/master/table/cell/detail/button", event: "touch-up-inside"))
        #expect(harness.collector.errors.isEmpty)
    }

    @Test("the snapshot holds the tree of the README")
    func snapshotTree() async throws {
        let harness = Harness()
        let master = MasterViewController(rows: 10, visibleRows: 2)
        harness.showInNavigation(master)
        master.table.selectRow(at: TableIndexPath(row: 1))

        let nodes = try await harness.nodes().map(\.description)
        #expect(
            nodes == [
                "/master", "/master/more", "/master/table", "/master/table/cell#0", "/master/table/cell#1",
                "/master/table/cell/detail", "/master/table/cell/detail/button",
            ])
    }
}
