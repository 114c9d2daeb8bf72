import Anna
import AnnaKit
import Testing

/// Tables: rows shown in a window, reusable cells, named sections.
@MainActor
@Suite("Tables")
struct TableTests {
    @Test("a reused cell moves to its new row; the rows it left keep their nodes")
    func reuse() async throws {
        let harness = Harness()
        let master = harness.showMaster(rows: 20, visibleRows: 3)
        let cellsBefore = Set(master.table.visibleCells.map(ObjectIdentifier.init))

        master.table.scroll(toRow: TableIndexPath(row: 10))

        #expect(master.table.indexPathsForVisibleRows == [10, 11, 12].map { TableIndexPath(row: $0) })
        // The same three cells (still alive in the table): none was made for the new rows.
        #expect(Set(master.table.visibleCells.map(ObjectIdentifier.init)) == cellsBefore)
        let cellTraces = await harness.traces(includingUpdates: true).filter { $0.path == "/master/table/cell" }
        #expect(cellTraces.suffix(9) == Trace.rowsReplaced("/master/table/cell", left: 0...2, came: 10...12))
        let updates = await harness.results().filter { $0.value["event"] == "ana-updated" && $0.value["index"] == 11 }
        #expect(updates.map(\.value["value"]) == ["Item 11"])

        #expect(master.table.selectRow(at: TableIndexPath(row: 11)))
        #expect(await harness.traces().last == Trace("did-select", "/master/table/cell", 11))

        let cells = try await harness.nodes().filter { $0.path == "/master/table/cell" }
        #expect(cells.map(\.index) == [0, 1, 2, 10, 11, 12])  // rows keep their nodes, as in the reference
    }

    @Test("scrolling by one reuses the row that left for the row that came")
    func scrollByOne() async throws {
        let harness = Harness()
        let master = harness.showMaster(rows: 5, visibleRows: 3)
        let first = try #require(master.table.cellForRow(at: TableIndexPath(row: 0)))

        master.table.scroll(toRow: TableIndexPath(row: 1))
        #expect(master.table.cellForRow(at: TableIndexPath(row: 3)) === first)
        master.table.scroll(toRow: TableIndexPath(row: 4))  // as far as the end allows
        #expect(master.table.indexPathsForVisibleRows == [2, 3, 4].map { TableIndexPath(row: $0) })

        let cells = try await harness.nodes().filter { $0.path == "/master/table/cell" }
        #expect(cells.compactMap(\.index).sorted() == [0, 1, 2, 3, 4])
    }

    @Test("reloading shows the rows again")
    func reload() async throws {
        let harness = Harness()
        let master = harness.showMaster(rows: 3, visibleRows: 2)
        master.items = ["A", "B"]
        master.table.reloadData()

        let traces = await harness.traces(includingUpdates: true).filter { $0.path == "/master/table/cell" }
        #expect(traces.suffix(6) == Trace.rowsReplaced("/master/table/cell", left: 0...1, came: 0...1))
        let values = await harness.results().filter { $0.value["event"] == "ana-updated" }.suffix(2).map(\.value["value"])
        #expect(values == ["A", "B"])
    }

    @Test("a reused cell is already at its new row when prepareForReuse resets its values")
    func resetOnReuse() async throws {
        let harness = Harness()
        let master = harness.showMaster(rows: 5, visibleRows: 2, cellClass: ResettingItemCell.self)
        let first = try #require(master.table.cellForRow(at: TableIndexPath(row: 0)))
        let before = await harness.results().count

        master.table.scroll(toRow: TableIndexPath(row: 2))

        #expect(master.table.cellForRow(at: TableIndexPath(row: 2)) === first)
        let updates = await harness.results().dropFirst(before).filter { $0.value["event"] == "ana-updated" }.map(\.value)
        #expect(updates.map(\.["index"]) == [2, 2, 3, 3])  // the reset, then the new title
        #expect(updates.map(\.["value"]) == [.null, "Item 2", .null, "Item 3"])
        #expect(updates.map(\.["keyPath"]) == Array(repeating: "title", count: 4))
    }

    @Test("a reload drops every row's node; rows the window no longer shows keep theirs")
    func shrink() async throws {
        let harness = Harness()
        let master = harness.showMaster(rows: 5, visibleRows: 3)
        func cellIndexes() async throws -> [Int?] {
            try await harness.nodes().filter { $0.path == "/master/table/cell" }.map(\.index)
        }

        master.items = ["A"]
        master.table.reloadData()
        #expect(try await cellIndexes() == [0])

        master.items = ["A", "B", "C", "D"]
        master.table.reloadData()  // the pooled cells come back, still observing their titles
        #expect(try await cellIndexes() == [0, 1, 2])
        let updates = await harness.results().filter { $0.value["event"] == "ana-updated" }.map(\.value).suffix(3)
        #expect(updates.map(\.["index"]) == [0, 1, 2])
        #expect(updates.map(\.["value"]) == ["A", "B", "C"])

        master.table.visibleRowCount = 1
        #expect(master.table.indexPathsForVisibleRows == [TableIndexPath(row: 0)])
        #expect(try await cellIndexes() == [0, 1, 2])
    }

    @Test("named sections are keyed nodes between the table and its cells")
    func sections() async throws {
        let harness = Harness()
        let shop = SectionedViewController(sections: [("featured", 2), ("all", 5)], visibleRows: 4)
        harness.show(shop)

        #expect(shop.table.selectRow(at: TableIndexPath(row: 0, section: 1)))

        let appeared = await harness.traces().filter { $0.event == "ana-appeared" && $0.path.hasSuffix("/cell") }
        #expect(
            appeared == [
                Trace("ana-appeared", "/shop/table/featured/cell", 0),
                Trace("ana-appeared", "/shop/table/featured/cell", 1),
                Trace("ana-appeared", "/shop/table/all/cell", 0),
                Trace("ana-appeared", "/shop/table/all/cell", 1),
            ])
        let probe = await harness.results().first { $0.value["probe"] == "section" }
        #expect(probe?.value == ["probe": "section", "section": "all", "sectionIndex": 1, "row": 0])

        let nodes = try await harness.nodes()
        #expect(
            nodes.map(\.description) == [
                "/shop", "/shop/table", "/shop/table/featured#0", "/shop/table/featured/cell#0",
                "/shop/table/featured/cell#1", "/shop/table/all#1", "/shop/table/all/cell#0", "/shop/table/all/cell#1",
            ])
        // A section node has a keyed ID: the table's number, its name and its index.
        let table = try #require(nodes.first { $0.path == "/shop/table" })
        #expect(nodes.first { $0.path == "/shop/table/all" }?.id == "\(table.id)/all/1")
    }

    @Test("a reload deregisters the nodes of named sections that are gone or renamed")
    func removedSections() async throws {
        let harness = Harness()
        let shop = SectionedViewController(sections: [("featured", 2), ("all", 5)], visibleRows: 4)
        harness.show(shop)
        #expect(
            try await harness.nodes().filter { $0.path.hasPrefix("/shop/table/") && !$0.path.hasSuffix("/cell") }
                .map(\.description) == ["/shop/table/featured#0", "/shop/table/all#1"])

        shop.sections = [("all", 1)]
        shop.table.reloadData()

        let nodes = try await harness.nodes()
        #expect(nodes.map(\.description) == ["/shop", "/shop/table", "/shop/table/all#0", "/shop/table/all/cell#0"])
        let table = try #require(nodes.first { $0.path == "/shop/table" })
        #expect(nodes.first { $0.path == "/shop/table/all" }?.id == "\(table.id)/all/0")
    }

    /// The screen `plain` showing a table of two rows at a time of `cellClass` cells, its
    /// analyzer not enabled.
    private func showUnanalyzedTable(of cellClass: TableViewCell.Type) -> (Harness, TableView, PlainSource) {
        let harness = Harness()
        let screen = ScreenViewController(name: "plain")
        let table = TableView(visibleRowCount: 2)
        let source = PlainSource()
        table.register(cellClass, forCellReuseIdentifier: "Cell")
        table.dataSource = source
        screen.view.addSubview(table)
        harness.show(screen)
        return (harness, table, source)
    }

    @Test("a table whose analyzer is not enabled records nothing for its rows")
    func unanalyzedTable() async throws {
        let (harness, table, source) = showUnanalyzedTable(of: TableViewCell.self)
        #expect(table.visibleCells.count == 2)
        #expect(table.selectRow(at: TableIndexPath(row: 1)))

        #expect(await harness.traces() == [Trace("ana-appeared", "/plain")])
        withExtendedLifetime(source) {}  // the data source is held weakly
    }

    /// The screen `plain` showing a table of two rows at a time whose cells name themselves;
    /// the table's analyzer is enabled with `name` (none: not enabled).
    private func showSelfNamingTable(named name: String?) -> (Harness, TableView, SelfNamingRowsSource) {
        let harness = Harness()
        let screen = ScreenViewController(name: "plain")
        let table = TableView(visibleRowCount: 2)
        let source = SelfNamingRowsSource()
        table.dataSource = source
        screen.view.addSubview(table)
        if let name { table.analyzer.enable(naming: name) }
        harness.show(screen)
        return (harness, table, source)
    }

    @Test("a cell that names itself in a table whose analyzer is not enabled records nothing, as in the reference")
    func selfNamedCellInUnanalyzedTable() async throws {
        let (harness, table, source) = showSelfNamingTable(named: nil)
        table.scroll(toRow: TableIndexPath(row: 2))  // a reused cell names itself again
        #expect(table.selectRow(at: TableIndexPath(row: 2)))
        table.cellForRow(at: TableIndexPath(row: 2))?.analyzer.update("B", for: "title")

        #expect(source.namedCells == 3)
        try await harness.expectOnlyScreen("/plain")
    }

    @Test("a named view in a cell of a table whose analyzer is not enabled finds no parent past the cell")
    func namedViewInCellOfUnanalyzedTable() async throws {
        let (harness, table, source) = showUnanalyzedTable(of: ButtonCell.self)
        let cell = try #require(table.cellForRow(at: TableIndexPath(row: 0)) as? ButtonCell)
        cell.button.tap()  // the button names itself `button`

        try await harness.expectOnlyScreen("/plain")
        withExtendedLifetime(source) {}  // the data source is held weakly
    }

    @Test("a cell that names itself in a table whose analyzer is enabled records at its row")
    func selfNamedCellInAnalyzedTable() async throws {
        let (harness, table, source) = showSelfNamingTable(named: "tb")
        table.scroll(toRow: TableIndexPath(row: 2))
        #expect(table.selectRow(at: TableIndexPath(row: 2)))
        #expect(source.namedCells == 3)  // the data source is held weakly: kept alive here

        try await harness.expectSelfNamedCellsScrolled(list: "tb", cell: "rw")
    }
}

/// A screen named `shop` with a table in named sections.
final class SectionedViewController: ViewController, TableViewDataSource {
    let table: TableView
    var sections: [(name: String, rows: Int)]

    init(sections: [(name: String, rows: Int)], visibleRows: Int) {
        self.sections = sections
        table = TableView(visibleRowCount: visibleRows)
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        table.register(TableViewCell.self, forCellReuseIdentifier: "Cell")
        table.dataSource = self
        view.addSubview(table)
        analyzer.enable(naming: "shop")
        analyzer.setSubAnalyzer(table.analyzer, for: "table")
    }

    func numberOfSections(in tableView: TableView) -> Int { sections.count }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { sections[section].rows }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: "Cell", for: indexPath)
    }

    func tableView(_ tableView: TableView, analyticsNameForSection section: Int) -> String? {
        sections[section].name
    }
}

/// Three rows of plain cells.
final class PlainSource: TableViewDataSource {
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 3 }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: "Cell", for: indexPath)
    }
}

/// Three rows whose cells name themselves `rw` in `cellForRowAt`, as the reference's tests do.
final class SelfNamingRowsSource: TableViewDataSource {
    /// How many times a cell was named.
    private(set) var namedCells = 0

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 3 }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "rw") ?? TableViewCell(reuseIdentifier: "rw")
        cell.analyzer.enable(naming: "rw")
        namedCells += 1
        return cell
    }
}
