import Anna

/// A list of rows in sections, showing a window of ``visibleRowCount`` consecutive rows with
/// reusable cells.
///
/// There is no geometry: the rows shown are the `visibleRowCount` rows starting at the one
/// scrolled to (``scroll(toRow:)``), counted across sections. Rows are laid out while the
/// table is visible, before the controllers above it get `viewDidAppear`.
///
/// Showing a row asks the data source for its cell and, when the table's analyzer is
/// enabled, attaches the cell's analyzer under the table's at the row: named by the cell's
/// own ``Analyzing/enable(naming:)`` if it called it, else ``cellAnalyticsName``, with the
/// row as index, under a keyed section node when the data source names the section (the
/// section node records `ana-appeared` when it is made). Then the cell is added, recording
/// `ana-appeared`, and only then is the delegate's `willDisplay` called.
///
/// A row's node belongs to the row, as in the reference: it is keyed by the index path and
/// kept when the cell scrolls out or is reused for another row, so a row shown again keeps
/// its node and its values (the nodes are bounded by the rows). ``reloadData()`` deregisters
/// every row and section node. ``selectRow(at:)`` records `did-select` on the cell and marks
/// it focused.
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
    /// The unnamed sections whose rows have nodes under the table's.
    private var unnamedSections: Set<Int> = []

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
    /// ``TableViewCell/prepareForReuse()``), or a new one of the registered class.
    ///
    /// A reused cell leaves its old row's node first (the node stays with that row): what it
    /// records while resetting and what the data source records while configuring it waits,
    /// and goes to the new row's node once the table attaches it there.
    /// - Precondition: a class is registered for `identifier`.
    public func dequeueReusableCell(withIdentifier identifier: String, for indexPath: TableIndexPath) -> TableViewCell {
        if let cell = dequeueReusableCell(withIdentifier: identifier) { return cell }
        guard let cellClass = cellClasses[identifier] else {
            preconditionFailure("No cell class is registered for the reuse identifier '\(identifier)'.")
        }
        return cellClass.init(reuseIdentifier: identifier)
    }

    /// A cell waiting for reuse under `identifier` (after its
    /// ``TableViewCell/prepareForReuse()``), or `nil` when the pool has none: the data source
    /// then makes one itself.
    public func dequeueReusableCell(withIdentifier identifier: String) -> TableViewCell? {
        guard var pool = reusePool[identifier], !pool.isEmpty else { return nil }
        let cell = pool.removeFirst()
        reusePool[identifier] = pool
        releaseNode(of: cell)
        cell.prepareForReuse()
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

    /// Forgets the rows and shows them again from the data source: every shown row disappears,
    /// the nodes of every row and section are deregistered (values recorded before do not
    /// leak into the rows after), and the rows now in the window appear.
    public func reloadData() {
        for (indexPath, cell) in displayedCells.sorted(by: { $0.key < $1.key }) {
            endDisplaying(cell, at: indexPath)
        }
        rowCounts = nil
        indexPathForSelectedRow = nil
        removeRowNodes()
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

    /// Shows the rows of the window and ends showing the others (only while visible).
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
    }

    private func display(at indexPath: TableIndexPath) {
        guard let dataSource else { return }
        let cell = dataSource.tableView(self, cellForRowAt: indexPath)
        attachAnalyzer(of: cell, at: indexPath)
        cell.indexPath = indexPath
        displayedCells[indexPath] = cell
        addSubview(cell)
        delegate?.tableView(self, willDisplay: cell, forRowAt: indexPath)
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

    /// Attaches the cell's analyzer at the row's position: under the named section's node
    /// (made, and recording `ana-appeared`, for the section's first row) or the table's.
    private func attachAnalyzer(of cell: TableViewCell, at indexPath: TableIndexPath) {
        guard let tableAnalyzer = analyzerSlot.enabledAnalyzer else { return }
        let cellAnalyzer = cell.analyzerSlot.analyzer(for: cell)
        let name = cellAnalyzer.enabledName ?? cellAnalyticsName
        if let sectionName = dataSource?.tableView(self, analyticsNameForSection: indexPath.section) {
            let section = tableAnalyzer.keyedSubAnalyzer(for: sectionName, index: indexPath.section)
            if sectionNodes.insert(SectionNode(section: indexPath.section, name: sectionName)).inserted {
                section.record(VisibilityEvent.appeared)
            }
            section.setSubAnalyzer(cellAnalyzer, for: name, index: indexPath.row, at: [.index(indexPath.row)])
        } else {
            unnamedSections.insert(indexPath.section)
            tableAnalyzer.setSubAnalyzer(
                cellAnalyzer, for: name, index: indexPath.row, at: [.index(indexPath.section), .index(indexPath.row)])
        }
        cell.analyzerIndexPath = indexPath
    }

    /// Releases the cell's analyzer from its row (the row's node stays): what the cell records
    /// until it is attached again waits.
    private func releaseNode(of cell: TableViewCell) {
        guard cell.analyzerIndexPath != nil else { return }
        cell.analyzerIndexPath = nil
        cell.analyzerSlot.enabledAnalyzer?.removeFromParent()
    }

    /// Deregisters the nodes of every section and row, as the reference does on a reload.
    private func removeRowNodes() {
        guard let tableAnalyzer = analyzerSlot.enabledAnalyzer else { return }
        for node in sectionNodes.sorted() {
            tableAnalyzer.removeKeyedSubAnalyzer(for: node.name, index: node.section)
        }
        for section in unnamedSections.sorted() {
            tableAnalyzer.removePositionNodes(under: [.index(section)])
        }
        sectionNodes.removeAll()
        unnamedSections.removeAll()
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
