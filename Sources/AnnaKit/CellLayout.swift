import Anna

/// What a view that shows cells (a ``TableView``, a ``CollectionView``) tells its
/// ``CellLayout``: its data source's answers and its delegate's hooks, in its own terms.
@MainActor
protocol CellLayoutHost: View {
    /// The cells the view shows.
    associatedtype Cell: ReusableCell

    /// The name of the cells' nodes when a cell does not name itself.
    var cellAnalyticsName: String { get }
    /// The number of sections, or `nil` when there is no data source to ask.
    func sectionCountFromDataSource() -> Int?
    /// The number of items in `section`.
    func itemCountFromDataSource(inSection section: Int) -> Int
    /// The cell for the item at `indexPath`, or `nil` when there is no data source.
    func cellFromDataSource(at indexPath: TableIndexPath) -> Cell?
    /// The name of the node of `section`, or `nil` for none.
    func analyticsNameFromDataSource(forSection section: Int) -> String?
    /// Tells the delegate that `cell` is shown at `indexPath`.
    func delegateWillDisplay(_ cell: Cell, at indexPath: TableIndexPath)
    /// Tells the delegate that `cell` stopped being shown at `indexPath`.
    func delegateDidEndDisplaying(_ cell: Cell, at indexPath: TableIndexPath)
    /// Tells the delegate that the item at `indexPath` was selected.
    func delegateDidSelect(at indexPath: TableIndexPath)
}

/// The cells of a table or collection view: sections of items shown in a window of
/// consecutive items, reusable cells, and the items' kept nodes.
///
/// One implementation serves both views, as the reference hooks both the same way. There is
/// no geometry: the items shown are the ``visibleCount`` items starting at the one scrolled
/// to, counted across sections, laid out while the view is visible.
///
/// Showing an item asks the data source for its cell and, when the view's analyzer is
/// enabled, attaches the cell's analyzer at the item's position: named by the cell's own
/// `enable(naming:)` if it called it, else the view's `cellAnalyticsName`, with the item as
/// index, under a keyed section node when the data source names the section (the section
/// node records `ana-appeared` when it is made). Then the cell is added, recording
/// `ana-appeared`, and only then is the delegate's `willDisplay` called.
///
/// An item's node is kept by its index path (``/Anna/Analyzer/setSubAnalyzer(_:for:index:at:)``):
/// a cell that scrolls out or is reused leaves it, with its values, for the next cell shown
/// there. ``reload()`` deregisters every item and section node.
@MainActor
final class CellLayout<Host: CellLayoutHost> {
    private unowned let host: Host

    /// How many items are shown at once.
    var visibleCount = 0 {
        didSet {
            if visibleCount < 0 { visibleCount = 0 }
            layout()
        }
    }

    /// The selected item, or `nil`.
    private(set) var selectedIndexPath: TableIndexPath?

    private var itemCounts: [Int]?
    private var firstVisibleItem = 0
    private var displayedCells: [TableIndexPath: Host.Cell] = [:]
    private var cellClasses: [String: Host.Cell.Type] = [:]
    private var reusePool: [String: [Host.Cell]] = [:]
    /// The keyed section nodes made under the view's analyzer.
    private var sectionNodes: Set<SectionNode> = []
    /// The unnamed sections whose items have nodes under the view's.
    private var unnamedSections: Set<Int> = []

    init(host: Host) {
        self.host = host
    }

    // MARK: - Cells

    func register(_ cellClass: Host.Cell.Type, for identifier: String) {
        cellClasses[identifier] = cellClass
    }

    /// A pooled cell for `identifier`, else a new one of the registered class.
    /// - Precondition: a class is registered for `identifier`.
    func dequeueCell(withIdentifier identifier: String) -> Host.Cell {
        if let cell = dequeuePooledCell(withIdentifier: identifier) { return cell }
        guard let cellClass = cellClasses[identifier] else {
            preconditionFailure("No cell class is registered for the reuse identifier '\(identifier)'.")
        }
        return cellClass.init(reuseIdentifier: identifier)
    }

    /// A cell waiting for reuse under `identifier`, after its `prepareForReuse()`; it left
    /// its old position's node first, so what it records now waits for its new position.
    func dequeuePooledCell(withIdentifier identifier: String) -> Host.Cell? {
        guard var pool = reusePool[identifier], !pool.isEmpty else { return nil }
        let cell = pool.removeFirst()
        reusePool[identifier] = pool
        releaseNode(of: cell)
        cell.prepareForReuse()
        return cell
    }

    func cell(at indexPath: TableIndexPath) -> Host.Cell? {
        displayedCells[indexPath]
    }

    /// The positions shown now, in order.
    var visibleIndexPaths: [TableIndexPath] {
        displayedCells.keys.sorted()
    }

    /// The cells shown now, in order.
    var visibleCells: [Host.Cell] {
        visibleIndexPaths.compactMap { displayedCells[$0] }
    }

    // MARK: - Items

    var sectionCount: Int {
        counts.count
    }

    func itemCount(inSection section: Int) -> Int {
        let counts = counts
        return counts.indices.contains(section) ? counts[section] : 0
    }

    /// Forgets the items and shows them again: every shown item disappears, the nodes of
    /// every item and section are deregistered, and the items now in the window appear.
    func reload() {
        for (indexPath, cell) in displayedCells.sorted(by: { $0.key < $1.key }) {
            endDisplaying(cell, at: indexPath)
        }
        itemCounts = nil
        selectedIndexPath = nil
        removeItemNodes()
        layout()
    }

    /// Makes the item at `indexPath` the first shown (or as close as the end allows).
    func scroll(to indexPath: TableIndexPath) {
        guard let flat = flatIndex(of: indexPath) else { return }
        firstVisibleItem = flat  // kept within the items when the window is laid out
        layout()
    }

    /// Selects the item as a tap would: scrolls to it when it is not shown, records
    /// `did-select` on its cell, marks the cell focused and tells the delegate.
    /// - Returns: `false` when the view is not visible or has no such item.
    func select(at indexPath: TableIndexPath) -> Bool {
        guard host.isVisible, flatIndex(of: indexPath) != nil else { return false }
        if displayedCells[indexPath] == nil { scroll(to: indexPath) }
        guard let cell = displayedCells[indexPath] else { return false }
        selectedIndexPath = indexPath
        cell.analyzerSlot.record("did-select")
        cell.analyzerSlot.markFocused()
        host.delegateDidSelect(at: indexPath)
        return true
    }

    // MARK: - Layout

    /// Shows the items of the window and ends showing the others (only while visible).
    func layout() {
        guard host.isVisible else { return }
        let wanted = visibleWindow()
        let wantedSet = Set(wanted)
        for (indexPath, cell) in displayedCells.sorted(by: { $0.key < $1.key }) where !wantedSet.contains(indexPath) {
            endDisplaying(cell, at: indexPath)
        }
        for indexPath in wanted where displayedCells[indexPath] == nil {
            display(at: indexPath)
        }
    }

    private func display(at indexPath: TableIndexPath) {
        guard let cell = host.cellFromDataSource(at: indexPath) else { return }
        attachAnalyzer(of: cell, at: indexPath)
        cell.indexPath = indexPath
        displayedCells[indexPath] = cell
        host.addSubview(cell)
        host.delegateWillDisplay(cell, at: indexPath)
    }

    private func endDisplaying(_ cell: Host.Cell, at indexPath: TableIndexPath) {
        displayedCells[indexPath] = nil
        cell.removeFromSuperview()
        cell.indexPath = nil
        host.delegateDidEndDisplaying(cell, at: indexPath)
        if let identifier = cell.reuseIdentifier {
            reusePool[identifier, default: []].append(cell)
        } else {
            releaseNode(of: cell)  // never reused by the view
        }
    }

    /// Attaches the cell's analyzer at the item's position: under the named section's node
    /// (made, and recording `ana-appeared`, for the section's first item shown) or the view's.
    private func attachAnalyzer(of cell: Host.Cell, at indexPath: TableIndexPath) {
        guard let viewAnalyzer = host.analyzerSlot.enabledAnalyzer else { return }
        let cellAnalyzer = cell.analyzerSlot.analyzer(for: cell)
        let name = cellAnalyzer.enabledName ?? host.cellAnalyticsName
        if let sectionName = host.analyticsNameFromDataSource(forSection: indexPath.section) {
            let section = viewAnalyzer.keyedSubAnalyzer(for: sectionName, index: indexPath.section)
            if sectionNodes.insert(SectionNode(section: indexPath.section, name: sectionName)).inserted {
                section.record(StandardEvent.appeared)
            }
            section.setSubAnalyzer(cellAnalyzer, for: name, index: indexPath.row, at: [.index(indexPath.row)])
        } else {
            unnamedSections.insert(indexPath.section)
            viewAnalyzer.setSubAnalyzer(
                cellAnalyzer, for: name, index: indexPath.row, at: [.index(indexPath.section), .index(indexPath.row)])
        }
        cell.analyzerIndexPath = indexPath
    }

    /// Releases the cell's analyzer from its position (the position's node stays): what the
    /// cell records until it is attached again waits.
    private func releaseNode(of cell: Host.Cell) {
        guard cell.analyzerIndexPath != nil else { return }
        cell.analyzerIndexPath = nil
        cell.analyzerSlot.enabledAnalyzer?.removeFromParent()
    }

    /// Deregisters the nodes of every section and item, as the reference does on a reload.
    private func removeItemNodes() {
        guard let viewAnalyzer = host.analyzerSlot.enabledAnalyzer else { return }
        for node in sectionNodes.sorted() {
            viewAnalyzer.removeKeyedSubAnalyzer(for: node.name, index: node.section)
        }
        for section in unnamedSections.sorted() {
            viewAnalyzer.removePositionNodes(under: [.index(section)])
        }
        sectionNodes.removeAll()
        unnamedSections.removeAll()
    }

    // MARK: - Item arithmetic

    /// The item counts of the sections, asked once after each reload (none without a data
    /// source).
    private var counts: [Int] {
        if let itemCounts { return itemCounts }
        guard let sections = host.sectionCountFromDataSource() else { return [] }
        let counts = (0..<max(0, sections)).map { max(0, host.itemCountFromDataSource(inSection: $0)) }
        itemCounts = counts
        return counts
    }

    /// The item's position counted across sections, or `nil` when there is no such item.
    private func flatIndex(of indexPath: TableIndexPath) -> Int? {
        let counts = counts
        guard counts.indices.contains(indexPath.section), (0..<counts[indexPath.section]).contains(indexPath.row)
        else { return nil }
        return counts[..<indexPath.section].reduce(0, +) + indexPath.row
    }

    /// The index paths of the items in the window, in order.
    private func visibleWindow() -> [TableIndexPath] {
        let counts = counts
        let total = counts.reduce(0, +)
        firstVisibleItem = min(firstVisibleItem, max(0, total - visibleCount))
        var result: [TableIndexPath] = []
        var start = 0
        for (section, count) in counts.enumerated() {
            let lower = max(firstVisibleItem, start)
            let upper = min(firstVisibleItem + visibleCount, start + count)
            if lower < upper {
                result += (lower..<upper).map { TableIndexPath(row: $0 - start, section: section) }
            }
            start += count
        }
        return result
    }
}

/// A keyed section node under a view's analyzer: the section's index and name.
private struct SectionNode: Hashable, Comparable {
    let section: Int
    let name: String

    static func < (lhs: SectionNode, rhs: SectionNode) -> Bool {
        (lhs.section, lhs.name) < (rhs.section, rhs.name)
    }
}
