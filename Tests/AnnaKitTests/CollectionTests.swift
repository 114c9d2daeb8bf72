import Anna
import AnnaKit
import Testing

/// Collection views: items shown in a window, reusable cells, kept item nodes, named sections.
@MainActor
@Suite("Collections")
struct CollectionTests {
    @Test("an item records ana-appeared before the delegate's willDisplay; a reused cell moves on, its items keep their nodes")
    func reuse() async throws {
        let harness = Harness()
        let gallery = GalleryController(sections: [(nil, 20)], visibleItems: 3)
        harness.show(gallery)
        let cellsBefore = Set(gallery.grid.visibleCells.map(ObjectIdentifier.init))
        #expect(gallery.visibleAtWillDisplay == [true, true, true])
        #expect(
            await harness.traces(includingUpdates: true).filter { $0.index == 0 } == [
                Trace("ana-updated", "/gallery/grid/tile", 0),  // the title, from cellForItemAt
                Trace("ana-appeared", "/gallery/grid/tile", 0),
                Trace("ana-updated", "/gallery/grid/tile", 0),  // the delegate's willDisplay
            ])

        gallery.grid.scrollToItem(at: CollectionIndexPath(item: 10))

        #expect(gallery.grid.indexPathsForVisibleItems == [10, 11, 12].map { CollectionIndexPath(item: $0) })
        #expect(Set(gallery.grid.visibleCells.map(ObjectIdentifier.init)) == cellsBefore)
        let visibility = await harness.traces().filter { $0.path == "/gallery/grid/tile" }.suffix(6)
        #expect(
            Array(visibility) == [
                Trace("ana-disappeared", "/gallery/grid/tile", 0),
                Trace("ana-disappeared", "/gallery/grid/tile", 1),
                Trace("ana-disappeared", "/gallery/grid/tile", 2),
                Trace("ana-appeared", "/gallery/grid/tile", 10),
                Trace("ana-appeared", "/gallery/grid/tile", 11),
                Trace("ana-appeared", "/gallery/grid/tile", 12),
            ])

        #expect(gallery.grid.selectItem(at: CollectionIndexPath(item: 11)))
        #expect(await harness.traces().last == Trace("did-select", "/gallery/grid/tile", 11))
        #expect(gallery.selected == [CollectionIndexPath(item: 11)])
        #expect(gallery.grid.indexPathsForSelectedItems == [CollectionIndexPath(item: 11)])
        #expect(!gallery.grid.selectItem(at: CollectionIndexPath(item: 20)))

        let tiles = try await harness.nodes().filter { $0.path == "/gallery/grid/tile" }
        #expect(tiles.map(\.index) == [0, 1, 2, 10, 11, 12])
    }

    @Test("an item shown again on another cell keeps its node and its values")
    func keptValues() async throws {
        let harness = Harness()
        let gallery = GalleryController(sections: [(nil, 8)], visibleItems: 2)
        harness.show(gallery)
        let first = try #require(gallery.grid.cellForItem(at: CollectionIndexPath(item: 0)))
        first.analyzer.update(5, for: "likes")
        let idBefore = try await harness.nodes().first { $0.path == "/gallery/grid/tile" && $0.index == 0 }?.id

        gallery.grid.scrollToItem(at: CollectionIndexPath(item: 6))
        gallery.grid.scrollToItem(at: CollectionIndexPath(item: 1))  // item 0 is out of the window
        gallery.grid.scrollToItem(at: CollectionIndexPath(item: 0))

        #expect(gallery.grid.cellForItem(at: CollectionIndexPath(item: 0)) !== first)  // another cell
        let probes = await harness.results().filter { $0.value["probe"] == "tile" && $0.value["index"] == 0 }
        #expect(probes.map(\.value["likes"]) == [.null, 5])
        let idAfter = try await harness.nodes().first { $0.path == "/gallery/grid/tile" && $0.index == 0 }?.id
        #expect(idBefore != nil)
        #expect(idAfter == idBefore)
    }

    @Test("reloadData drops every item node: values recorded before do not reach the items after")
    func reload() async throws {
        let harness = Harness()
        let gallery = GalleryController(sections: [(nil, 8)], visibleItems: 2)
        harness.show(gallery)
        gallery.grid.cellForItem(at: CollectionIndexPath(item: 0))?.analyzer.update(5, for: "likes")
        gallery.grid.scrollToItem(at: CollectionIndexPath(item: 4))
        #expect(try await harness.nodes().filter { $0.path == "/gallery/grid/tile" }.map(\.index) == [0, 1, 4, 5])

        gallery.grid.scrollToItem(at: CollectionIndexPath(item: 0))
        gallery.sections = [(nil, 3)]
        gallery.grid.reloadData()

        #expect(gallery.grid.numberOfItems(inSection: 0) == 3)
        #expect(try await harness.nodes().filter { $0.path == "/gallery/grid/tile" }.map(\.index) == [0, 1])
        let probes = await harness.results().filter { $0.value["probe"] == "tile" && $0.value["index"] == 0 }
        #expect(probes.map(\.value["likes"]) == [.null, 5, .null])  // shown, shown again, reloaded
    }

    @Test("named sections are keyed nodes that appear once, when made; a reload deregisters them")
    func sections() async throws {
        let harness = Harness()
        let gallery = GalleryController(sections: [("new", 2), ("all", 5)], visibleItems: 4)
        harness.show(gallery)
        gallery.grid.scrollToItem(at: CollectionIndexPath(item: 4, section: 1))
        gallery.grid.scrollToItem(at: CollectionIndexPath(item: 0, section: 0))

        let sectionTraces = await harness.traces().filter { !$0.path.hasSuffix("/tile") && $0.path.hasPrefix("/gallery/grid/") }
        #expect(sectionTraces == [Trace("ana-appeared", "/gallery/grid/new", 0), Trace("ana-appeared", "/gallery/grid/all", 1)])
        let nodes = try await harness.nodes()
        let grid = try #require(nodes.first { $0.path == "/gallery/grid" })
        #expect(nodes.first { $0.path == "/gallery/grid/all" }?.id == "\(grid.id)/all/1")
        #expect(
            nodes.filter { $0.path.hasPrefix("/gallery/grid/new") }.map(\.description) == [
                "/gallery/grid/new#0", "/gallery/grid/new/tile#0", "/gallery/grid/new/tile#1",
            ])

        gallery.sections = [("all", 1)]
        gallery.grid.reloadData()

        #expect(
            try await harness.nodes().map(\.description) == [
                "/gallery", "/gallery/grid", "/gallery/grid/all#0", "/gallery/grid/all/tile#0",
            ])
    }

    /// The screen `plain` showing a grid of two items at a time whose cells name themselves;
    /// the grid's analyzer is enabled with `name` (none: not enabled).
    private func showSelfNamingGrid(named name: String?) -> (Harness, CollectionView, SelfNamingItemsSource) {
        let harness = Harness()
        let screen = ScreenViewController(name: "plain")
        let grid = CollectionView(visibleItemCount: 2)
        let source = SelfNamingItemsSource()
        grid.register(CollectionViewCell.self, forCellWithReuseIdentifier: "Tile")
        grid.dataSource = source
        screen.view.addSubview(grid)
        if let name { grid.analyzer.enable(naming: name) }
        harness.show(screen)
        return (harness, grid, source)
    }

    @Test("a cell that names itself in a collection view whose analyzer is not enabled records nothing, as in the reference")
    func selfNamedCellInUnanalyzedView() async throws {
        let (harness, grid, source) = showSelfNamingGrid(named: nil)
        grid.scrollToItem(at: CollectionIndexPath(item: 2))  // a reused cell names itself again
        #expect(grid.selectItem(at: CollectionIndexPath(item: 2)))
        grid.cellForItem(at: CollectionIndexPath(item: 2))?.analyzer.update(5, for: "likes")

        #expect(source.namedCells == 3)
        try await harness.expectOnlyScreen("/plain")
    }

    @Test("a cell that names itself in a collection view whose analyzer is enabled records at its item")
    func selfNamedCellInAnalyzedView() async throws {
        let (harness, grid, source) = showSelfNamingGrid(named: "grid")
        grid.scrollToItem(at: CollectionIndexPath(item: 2))
        #expect(grid.selectItem(at: CollectionIndexPath(item: 2)))
        #expect(source.namedCells == 3)  // the data source is held weakly: kept alive here

        try await harness.expectSelfNamedCellsScrolled(list: "grid", cell: "tile")
    }
}

/// A screen named `gallery` with a collection view `grid` whose cells name themselves `tile`
/// and record their `title`; `willDisplay` records `shown` and notes whether the cell was
/// visible by then.
final class GalleryController: ViewController, CollectionViewDataSource, CollectionViewDelegate {
    let grid: CollectionView
    var sections: [(name: String?, items: Int)]
    private(set) var visibleAtWillDisplay: [Bool] = []
    private(set) var selected: [CollectionIndexPath] = []

    init(sections: [(name: String?, items: Int)], visibleItems: Int) {
        self.sections = sections
        grid = CollectionView(visibleItemCount: visibleItems)
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        grid.register(CollectionViewCell.self, forCellWithReuseIdentifier: "Tile")
        grid.dataSource = self
        grid.delegate = self
        view.addSubview(grid)
        analyzer.enable(naming: "gallery")
        analyzer.setSubAnalyzer(grid.analyzer, for: "grid")
    }

    func numberOfSections(in collectionView: CollectionView) -> Int { sections.count }

    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
        sections[section].items
    }

    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: CollectionIndexPath) -> CollectionViewCell {
        let cell = collectionView.dequeueReusableCell(withReuseIdentifier: "Tile", for: indexPath)
        cell.analyzer.enable(naming: "tile")
        cell.analyzer.update("Item \(indexPath)", for: "title")
        return cell
    }

    func collectionView(_ collectionView: CollectionView, analyticsNameForSection section: Int) -> String? {
        sections[section].name
    }

    func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: CollectionIndexPath) {
        visibleAtWillDisplay.append(cell.isVisible)
        cell.analyzer.update(true, for: "shown")
    }

    func collectionView(_ collectionView: CollectionView, didSelectItemAt indexPath: CollectionIndexPath) {
        selected.append(indexPath)
    }
}

/// Three items whose cells name themselves `tile` in `cellForItemAt`.
final class SelfNamingItemsSource: CollectionViewDataSource {
    /// How many times a cell was named.
    private(set) var namedCells = 0

    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { 3 }

    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: CollectionIndexPath) -> CollectionViewCell {
        let cell = collectionView.dequeueReusableCell(withReuseIdentifier: "Tile", for: indexPath)
        cell.analyzer.enable(naming: "tile")
        namedCells += 1
        return cell
    }
}
