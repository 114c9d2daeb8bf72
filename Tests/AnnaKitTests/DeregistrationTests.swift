import Anna
import AnnaKit
import AnnaTestSupport
import Foundation
import Testing

/// Nodes go away when their analyzer is detached or their object is deallocated.
@MainActor
@Suite("Deregistration")
struct DeregistrationTests {
    @Test("detaching an analyzer removes its node and the nodes below it")
    func detach() async throws {
        let harness = Harness()
        let screen = ScreenViewController(name: "screen")
        let banner = View()
        let label = View()
        banner.addSubview(label)
        screen.view.addSubview(banner)
        banner.analyzer.enable(naming: "banner")
        label.analyzer.enable(naming: "label")
        harness.show(screen)
        #expect(try await harness.nodes().map(\.path) == ["/screen", "/screen/banner", "/screen/banner/label"])

        banner.analyzer.detach()
        #expect(try await harness.nodes().map(\.path) == ["/screen"])

        let before = await harness.traces().count
        banner.isHidden = true  // a detached analyzer records nothing
        #expect(await harness.traces().count == before + 1)  // only the label's disappearance
        #expect(await harness.traces().last == Trace("ana-disappeared", "/screen/label"))
    }

    @Test("a view, a controller and a cell that go away take their nodes with them")
    func deinitialization() async throws {
        let harness = Harness()
        let master = MasterViewController(rows: 6, visibleRows: 2)
        let navigation = harness.showInNavigation(master)

        var banner: View? = View()
        weak let bannerProbe = banner
        banner?.analyzer.enable(naming: "banner")
        master.view.addSubview(banner ?? View())
        master.table.selectRow(at: TableIndexPath(row: 0))
        weak let detailProbe = navigation.topViewController
        #expect(try await harness.nodes().map(\.path).contains("/master/banner"))
        #expect(try await harness.nodes().map(\.path).contains("/master/table/cell/detail/button"))

        banner?.removeFromSuperview()
        banner = nil
        navigation.popViewController()

        #expect(bannerProbe == nil)
        #expect(detailProbe == nil)
        #expect(
            try await harness.nodes().map(\.description) == [
                "/master", "/master/more", "/master/table", "/master/table/cell#0", "/master/table/cell#1",
            ])
    }

    @Test("cells without a reuse identifier are dropped when they scroll out; their rows keep their nodes")
    func unreusableCells() async throws {
        let harness = Harness()
        let screen = SingleUseViewController()
        harness.show(screen)
        weak let first = screen.table.cellForRow(at: TableIndexPath(row: 0))
        #expect(first != nil)

        screen.table.scroll(toRow: TableIndexPath(row: 2))

        #expect(first == nil)
        let cells = try await harness.nodes().filter { $0.path == "/list/table/cell" }
        #expect(cells.map(\.index) == [0, 1, 2, 3])  // a row's node belongs to the row, as in the reference
    }

    @Test("an application that goes away empties the tree")
    func application() async throws {
        let collector = RecordingDelegate()
        let manager = Manager(moduleURL: Harness.moduleURL)
        manager.delegate = collector
        var application: Application? = Application(manager: manager)
        let screen = ScreenViewController(name: "screen")
        application?.window = Window(rootViewController: screen)
        #expect(try SnapshotNode.all(in: await manager.snapshot(format: .json)).map(\.path) == ["/screen"])

        application = nil

        #expect(try await manager.snapshot(format: .json) == #"{"root":null}"#)
        #expect(collector.errors.isEmpty)
    }
}

/// A screen named `list` whose cells have no reuse identifier.
final class SingleUseViewController: ViewController, TableViewDataSource {
    let table = TableView(visibleRowCount: 2)

    override func viewDidLoad() {
        super.viewDidLoad()
        table.dataSource = self
        view.addSubview(table)
        analyzer.enable(naming: "list")
        analyzer.setSubAnalyzer(table.analyzer, for: "table")
    }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 4 }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        TableViewCell(reuseIdentifier: nil)
    }
}
