import Anna
import AnnaKit
import CoreJS
import Testing

/// A node whose parent node goes while its object stays moves to its new parent with its
/// values, visibility and kept events; debug mode says so once.
@MainActor
@Suite("Node moves")
struct NodeMoveTests {
    /// notes (count 0) in a navigation stack; its "new" button tapped, then notes (count 1)
    /// pushed: the pushed screen hangs under the button, `/notes/new/notes`.
    private func pushedUnderButton(_ harness: Harness) -> (NotesViewController, NotesViewController) {
        let first = NotesViewController(count: 0)
        let navigation = harness.showInNavigation(first)
        first.new.tap()
        let second = NotesViewController(count: 1)
        navigation.pushViewController(second)
        return (first, second)
    }

    private func probes(_ harness: Harness) async -> [JSONValue] {
        await harness.results().map(\.value).filter { $0["event"] == "probe" }
    }

    @Test("a screen whose parent button goes moves to the screen below with its count, visibility and first appearance")
    func movesWithValues() async throws {
        let harness = Harness(module: "notes")
        let (first, second) = pushedUnderButton(harness)
        second.analyzer.record("probe")
        first.new.analyzer.detach()  // the button's node goes; the pushed screen stays
        second.analyzer.record("probe")

        let probes = await probes(harness)
        let probe = { (path: JSONValue) -> JSONValue in
            ["event": "probe", "path": path, "count": 1, "pinned": nil, "visible": true, "shownBy": "ana-appeared"]
        }
        #expect(probes == [probe("/notes/new/notes"), probe("/notes/notes")])
        // The screen's buttons follow when they next record (see descendantsFollow).
        #expect(try await harness.nodes().map(\.description) == ["/notes", "/notes/sign-out", "/notes/notes"])
        #expect(harness.collector.errorDescriptions == [])
    }

    @Test("a moved screen's buttons follow it when they record again, with their own values")
    func descendantsFollow() async throws {
        let harness = Harness(module: "notes")
        let (first, second) = pushedUnderButton(harness)
        second.signOut.analyzer.update(3, for: "count")
        first.new.analyzer.detach()
        second.signOut.analyzer.record("probe")
        let probes = await probes(harness)
        #expect(probes.map { $0["path"] } == ["/notes/notes/sign-out"])
        #expect(probes.map { $0["count"] } == [3])
    }

    /// The errors this harness's manager caught, without the reports of waiting events that
    /// every manager in debug mode hears (other tests' analyzers wait for parents too).
    static func ownErrors(_ harness: Harness) -> [any Error] {
        harness.collector.errors.filter {
            if case AnalyticsError.eventsWaiting = $0 { return false }
            return true
        }
    }

    @Test("debug mode says once that the node moved, naming both paths")
    func debugSaysSoOnce() async throws {
        let harness = Harness(module: "notes", debug: true)
        let (first, second) = pushedUnderButton(harness)
        first.new.analyzer.detach()
        second.analyzer.record("probe")
        second.analyzer.record("probe")
        second.new.tap()
        _ = await harness.results()
        let moves = harness.collector.errors.compactMap { $0 as? NodeMove }
        #expect(
            moves.map(\.description) == [
                "node /notes/new/notes moved to /notes/notes: a node above it was deregistered while its analyzer stayed; "
                    + "its values, visibility and recent events moved with it"
            ])
        #expect(Self.ownErrors(harness).filter { !($0 is NodeMove) }.isEmpty)
    }

    @Test("a renamed screen's descendants keep their values under the new name, and nothing is said")
    func renamedParent() async throws {
        let harness = Harness(module: "notes", debug: true)
        let (first, second) = pushedUnderButton(harness)
        first.analyzer.enable(naming: "home")
        second.analyzer.record("probe")
        let probes = await probes(harness)
        #expect(probes.map { $0["path"] } == ["/home/new/notes"])
        #expect(probes.map { $0["count"] } == [1])
        #expect(Self.ownErrors(harness).isEmpty)
    }
}

/// Other ways a node's parent goes while the node stays.
@MainActor
@Suite("Node moves elsewhere")
struct NodeMoveElsewhereTests {
    @Test("a detail opened from a row keeps its values when the master reloads its table")
    func reloadUnderDetail() async throws {
        let harness = Harness(module: "notes")
        let master = MasterViewController(rows: 5, visibleRows: 3)
        let navigation = harness.showInNavigation(master)
        master.table.selectRow(at: TableIndexPath(row: 1))
        let detail = try #require(navigation.topViewController as? DetailViewController)
        detail.analyzer.update(5, for: "count")
        detail.analyzer.record("probe")
        master.table.reloadData()
        detail.analyzer.record("probe")
        let probes = await harness.results().map(\.value).filter { $0["event"] == "probe" }
        // The row's node went with the reload; the detail, still shown, hangs under the master now.
        #expect(probes.map { $0["path"] } == ["/master/table/cell/detail", "/master/detail"])
        #expect(probes.map { $0["count"] } == [5, 5])
        #expect(probes.map { $0["visible"] } == [true, true])
        #expect(harness.collector.errorDescriptions == [])
    }
}

/// A reload drops the rows' values even while the table's own node is detached.
@MainActor
@Suite("Reloading a detached table")
struct DetachedReloadTests {
    final class Rows: TableViewDataSource {
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 3 }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
            tableView.dequeueReusableCell(withIdentifier: "Row", for: indexPath)
        }
    }

    @Test("rows reloaded while the hidden table waits to move start afresh")
    func reloadWhileDetached() async throws {
        let harness = Harness(module: "notes")
        let screen = ScreenViewController(name: "screen")
        let box = View()
        let table = TableView(visibleRowCount: 2)
        let rows = Rows()
        table.register(TableViewCell.self, forCellReuseIdentifier: "Row")
        table.dataSource = rows
        screen.view.addSubview(box)
        box.addSubview(table)
        box.analyzer.enable(naming: "box")
        table.analyzer.enable(naming: "list")
        harness.show(screen)
        let row = TableIndexPath(row: 0)
        try #require(table.cellForRow(at: row)).analyzer.update(9, for: "count")
        try #require(table.cellForRow(at: row)).analyzer.record("probe")

        table.isHidden = true  // its rows disappear: no row records during the reload
        box.analyzer.detach()  // the table's node is detached until the table records again
        table.reloadData()
        table.isHidden = false
        try #require(table.cellForRow(at: row)).analyzer.record("probe")

        let probes = await harness.results().map(\.value).filter { $0["event"] == "probe" }
        #expect(probes.map { $0["path"] } == ["/screen/box/list/cell", "/screen/list/cell"])
        #expect(probes.map { $0["count"] } == [9, .null])
        #expect(harness.collector.errorDescriptions == [])
    }
}
