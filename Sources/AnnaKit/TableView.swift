import Anna

/// A list of rows in sections, showing a window of ``visibleRowCount`` consecutive rows with
/// reusable cells.
///
/// There is no geometry: the rows shown are the `visibleRowCount` rows starting at the one
/// scrolled to (``scroll(toRow:)``), counted across sections. Rows are laid out while the
/// table is visible. Showing a row asks the data source for its cell, attaches the cell's
/// analyzer under the table's (as `cell` with the row as index, under a keyed section node
/// when the data source names the section) and adds the cell: when the table's analyzer is
/// enabled, the cell records `ana-appeared`. A row scrolled out records `ana-disappeared` and
/// its cell waits in the reuse pool; when it is reused for another row its node moves there.
/// A cell left in the pool once the window is laid out (the data shrank, or fewer rows are
/// shown) has its node deregistered, and a reload deregisters the nodes of named sections
/// that are gone.
/// ``selectRow(at:)`` records `did-select` on the cell and marks it focused.
///
/// ```swift
/// let table = TableView(visibleRowCount: 3)
/// table.register(TableViewCell.self, forCellReuseIdentifier: "Cell")
/// table.dataSource = self
/// table.delegate = self
/// ```
@MainActor
open class TableView: View {
    /// Provides sections, rows and cells; held weakly.
    public weak var dataSource: (any TableViewDataSource)?
    /// Hears about rows shown, hidden and selected; held weakly.
    public weak var delegate: (any TableViewDelegate)?
    /// The name of the cells' nodes; `cell` by default.
    public var cellAnalyticsName = "cell"

    /// How many rows are shown at once.
    public var visibleRowCount: Int {
        didSet {
            if visibleRowCount < 0 { visibleRowCount = 0 }
            layoutRows()
        }
    }

    /// The selected row (after ``selectRow(at:)``), or `nil`.
    public private(set) var indexPathForSelectedRow: TableIndexPath?

    private var rowCounts: [Int]?
    private var firstVisibleRow = 0
    private var displayedCells: [TableIndexPath: TableViewCell] = [:]
    private var cellClasses: [String: TableViewCell.Type] = [:]
    private var reusePool: [String: [TableViewCell]] = [:]
    /// The keyed section nodes made under the table's analyzer.
    private var sectionNodes: Set<SectionNode> = []

    /// Creates a table that shows `visibleRowCount` rows at a time.
    public init(visibleRowCount: Int = 10) {
        self.visibleRowCount = max(0, visibleRowCount)
        super.init()
    }

    // MARK: - Cells

    /// Registers the class of the cells made for `identifier` when the pool has none.
    public func register(_ cellClass: TableViewCell.Type, forCellReuseIdentifier identifier: String) {
        cellClasses[identifier] = cellClass
    }

    /// A cell for the row at `indexPath`: one waiting for reuse (after its
    /// ``TableViewCell/prepareForReuse()``), or a new one of the registered class. Its analyzer
    /// is already attached at `indexPath` (before `prepareForReuse()` runs), so what the cell
    /// records while resetting and what the data source records while configuring it go to
    /// the right node.
    /// - Precondition: a class is registered for `identifier`.
    public func dequeueReusableCell(withIdentifier identifier: String, for indexPath: TableIndexPath) -> TableViewCell {
        if var pool = reusePool[identifier], !pool.isEmpty {
            let cell = pool.removeFirst()
            reusePool[identifier] = pool
            attachAnalyzer(of: cell, at: indexPath)
            cell.prepareForReuse()
            return cell
        }
        guard let cellClass = cellClasses[identifier] else {
            preconditionFailure("No cell class is registered for the reuse identifier '\(identifier)'.")
        }
        let cell = cellClass.init(reuseIdentifier: identifier)
        attachAnalyzer(of: cell, at: indexPath)
        return cell
    }

    /// The cell shown at `indexPath`, or `nil` when the row is not shown.
    public func cellForRow(at indexPath: TableIndexPath) -> TableViewCell? {
        displayedCells[indexPath]
    }

    /// The rows shown now, in order.
    public var indexPathsForVisibleRows: [TableIndexPath] {
        displayedCells.keys.sorted()
    }

    /// The cells shown now, in row order.
    public var visibleCells: [TableViewCell] {
        indexPathsForVisibleRows.compactMap { displayedCells[$0] }
    }

    // MARK: - Rows

    /// The number of sections, as the data source last told.
    public var numberOfSections: Int {
        counts.count
    }

    /// The number of rows in `section`, as the data source last told.
    public func numberOfRows(inSection section: Int) -> Int {
        let counts = counts
        return counts.indices.contains(section) ? counts[section] : 0
    }

    /// Forgets the rows and shows them again from the data source: every shown row disappears
    /// and the rows now in the window appear. The nodes of named sections that are gone (or
    /// now have another name) are deregistered.
    public func reloadData() {
        for (indexPath, cell) in displayedCells.sorted(by: { $0.key < $1.key }) {
            endDisplaying(cell, at: indexPath)
        }
        rowCounts = nil
        indexPathForSelectedRow = nil
        removeStaleSectionNodes()
        layoutRows()
    }

    /// Scrolls so that the row at `indexPath` is the first shown (or as close as the end of
    /// the list allows). Rows leaving the window disappear, rows entering it appear.
    public func scroll(toRow indexPath: TableIndexPath) {
        guard let flat = flatIndex(of: indexPath) else { return }
        firstVisibleRow = flat  // the window is kept within the rows when it is laid out
        layoutRows()
    }

    /// Selects the row at `indexPath` as a user's tap would: scrolls to it when it is not
    /// shown, records `did-select` on its cell, marks the cell focused and tells the delegate.
    /// - Returns: `false` when the table is not visible or has no such row.
    @discardableResult
    public func selectRow(at indexPath: TableIndexPath) -> Bool {
        guard isVisible, flatIndex(of: indexPath) != nil else { return false }
        if displayedCells[indexPath] == nil { scroll(toRow: indexPath) }
        guard let cell = displayedCells[indexPath] else { return false }
        indexPathForSelectedRow = indexPath
        cell.analyzerSlot.record("did-select")
        cell.analyzerSlot.markFocused()
        delegate?.tableView(self, didSelectRowAt: indexPath)
        return true
    }

    // MARK: - Layout

    override func didBecomeVisible() {
        layoutRows()
    }

    /// Shows the rows of the window and ends showing the others (only while visible); the
    /// cells the window did not take back from the pool lose their nodes.
    private func layoutRows() {
        guard isVisible, dataSource != nil else { return }
        let wanted = visibleWindow()
        let wantedSet = Set(wanted)
        for (indexPath, cell) in displayedCells.sorted(by: { $0.key < $1.key }) where !wantedSet.contains(indexPath) {
            endDisplaying(cell, at: indexPath)
        }
        for indexPath in wanted where displayedCells[indexPath] == nil {
            display(at: indexPath)
        }
        for identifier in reusePool.keys.sorted() {
            reusePool[identifier]?.forEach(releaseNode)
        }
    }

    private func display(at indexPath: TableIndexPath) {
        guard let dataSource else { return }
        let cell = dataSource.tableView(self, cellForRowAt: indexPath)
        if cell.analyzerIndexPath != indexPath { attachAnalyzer(of: cell, at: indexPath) }
        cell.indexPath = indexPath
        displayedCells[indexPath] = cell
        delegate?.tableView(self, willDisplay: cell, forRowAt: indexPath)
        addSubview(cell)
    }

    private func endDisplaying(_ cell: TableViewCell, at indexPath: TableIndexPath) {
        displayedCells[indexPath] = nil
        cell.removeFromSuperview()
        cell.indexPath = nil
        delegate?.tableView(self, didEndDisplaying: cell, forRowAt: indexPath)
        if let identifier = cell.reuseIdentifier {
            reusePool[identifier, default: []].append(cell)
        } else {
            releaseNode(of: cell)  // never reused by the table
        }
    }

    /// Makes the cell's analyzer the sub-analyzer `cell` at the row's index, under the table's
    /// analyzer or its named section's; moving it from another row deregisters the old node.
    private func attachAnalyzer(of cell: TableViewCell, at indexPath: TableIndexPath) {
        guard let tableAnalyzer = analyzerSlot.enabledAnalyzer else { return }
        var parent = tableAnalyzer
        if let name = dataSource?.tableView(self, analyticsNameForSection: indexPath.section) {
            parent = tableAnalyzer.keyedSubAnalyzer(for: name, index: indexPath.section)
            sectionNodes.insert(SectionNode(section: indexPath.section, name: name))
        }
        parent.setSubAnalyzer(cell.analyzer, for: cellAnalyticsName, index: indexPath.row)
        cell.analyzerIndexPath = indexPath
    }

    /// Deregisters the node of a cell waiting in the pool, keeping its observations (what it
    /// records meanwhile waits for the row it is reused for).
    private func releaseNode(of cell: TableViewCell) {
        guard cell.analyzerIndexPath != nil else { return }
        cell.analyzerIndexPath = nil
        (cell.analyzer as? Analyzer)?.removeFromParent()
    }

    /// Removes the keyed nodes of named sections that the data source no longer has, or
    /// names differently now.
    private func removeStaleSectionNodes() {
        guard !sectionNodes.isEmpty else { return }
        let sectionCount = numberOfSections
        let tableAnalyzer = analyzerSlot.analyzer(for: self)
        for node in sectionNodes.sorted() {
            if node.section < sectionCount, dataSource?.tableView(self, analyticsNameForSection: node.section) == node.name {
                continue
            }
            tableAnalyzer.removeKeyedSubAnalyzer(for: node.name, index: node.section)
            sectionNodes.remove(node)
        }
    }

    // MARK: - Row arithmetic

    private var counts: [Int] {
        if let rowCounts { return rowCounts }
        guard let dataSource else { return [] }
        let sections = max(0, dataSource.numberOfSections(in: self))
        let counts = (0..<sections).map { max(0, dataSource.tableView(self, numberOfRowsInSection: $0)) }
        rowCounts = counts
        return counts
    }

    /// The row's position counted across sections, or `nil` when there is no such row.
    private func flatIndex(of indexPath: TableIndexPath) -> Int? {
        let counts = counts
        guard counts.indices.contains(indexPath.section), (0..<counts[indexPath.section]).contains(indexPath.row)
        else { return nil }
        return counts[..<indexPath.section].reduce(0, +) + indexPath.row
    }

    /// The index paths of the rows in the window, in order.
    private func visibleWindow() -> [TableIndexPath] {
        let counts = counts
        let total = counts.reduce(0, +)
        firstVisibleRow = min(firstVisibleRow, max(0, total - visibleRowCount))
        var result: [TableIndexPath] = []
        var start = 0
        for (section, count) in counts.enumerated() {
            let lower = max(firstVisibleRow, start)
            let upper = min(firstVisibleRow + visibleRowCount, start + count)
            if lower < upper {
                result += (lower..<upper).map { TableIndexPath(row: $0 - start, section: section) }
            }
            start += count
        }
        return result
    }
}

/// A keyed section node under a table's analyzer: the section's index and name.
private struct SectionNode: Hashable, Comparable {
    let section: Int
    let name: String

    static func < (lhs: SectionNode, rhs: SectionNode) -> Bool {
        (lhs.section, lhs.name) < (rhs.section, rhs.name)
    }
}
