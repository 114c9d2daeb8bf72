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
/// own ``/Anna/Analyzing/enable(naming:)`` if it called it, else ``cellAnalyticsName``, with the
/// row as index, under a keyed section node when the data source names the section (the
/// section node records `ana-appeared` when it is made). Then the cell is added, recording
/// `ana-appeared`, and only then is the delegate's `willDisplay` called.
///
/// A row's node belongs to the row, as in the reference: it is keyed by the index path and
/// kept when the cell scrolls out or is reused for another row, so a row shown again keeps
/// its node and its values (the nodes are bounded by the rows). ``reloadData()`` deregisters
/// every row and section node. ``selectRow(at:)`` records `did-select` on the cell and marks
/// it focused. A ``CollectionView`` shows its items the same way.
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

    private lazy var cells = CellLayout(host: self)

    /// Creates a table that shows `visibleRowCount` rows at a time.
    public init(visibleRowCount: Int = 10) {
        super.init()
        cells.visibleCount = visibleRowCount
    }

    /// How many rows are shown at once (never fewer than 0).
    public var visibleRowCount: Int {
        get { cells.visibleCount }
        set { cells.visibleCount = newValue }
    }

    /// The selected row (after ``selectRow(at:)``), or `nil`.
    public var indexPathForSelectedRow: TableIndexPath? {
        cells.selectedIndexPath
    }

    // MARK: - Cells

    /// Registers the class of the cells made for `identifier` when the pool has none.
    public func register(_ cellClass: TableViewCell.Type, forCellReuseIdentifier identifier: String) {
        cells.register(cellClass, for: identifier)
    }

    /// A cell for the row at `indexPath`: one waiting for reuse (after its
    /// ``ReusableCell/prepareForReuse()``), or a new one of the registered class.
    ///
    /// A reused cell leaves its old row's node first (the node stays with that row): what it
    /// records while resetting and what the data source records while configuring it waits,
    /// and goes to the new row's node once the table attaches it there.
    /// - Precondition: a class is registered for `identifier`.
    public func dequeueReusableCell(withIdentifier identifier: String, for indexPath: TableIndexPath) -> TableViewCell {
        cells.dequeueCell(withIdentifier: identifier)
    }

    /// A cell waiting for reuse under `identifier` (after its
    /// ``ReusableCell/prepareForReuse()``), or `nil` when the pool has none: the data source
    /// then makes one itself.
    public func dequeueReusableCell(withIdentifier identifier: String) -> TableViewCell? {
        cells.dequeuePooledCell(withIdentifier: identifier)
    }

    /// The cell shown at `indexPath`, or `nil` when the row is not shown.
    public func cellForRow(at indexPath: TableIndexPath) -> TableViewCell? {
        cells.cell(at: indexPath)
    }

    /// The rows shown now, in order.
    public var indexPathsForVisibleRows: [TableIndexPath] {
        cells.visibleIndexPaths
    }

    /// The cells shown now, in row order.
    public var visibleCells: [TableViewCell] {
        cells.visibleCells
    }

    // MARK: - Rows

    /// The number of sections, as the data source last told.
    public var numberOfSections: Int {
        cells.sectionCount
    }

    /// The number of rows in `section`, as the data source last told.
    public func numberOfRows(inSection section: Int) -> Int {
        cells.itemCount(inSection: section)
    }

    /// Forgets the rows and shows them again from the data source: every shown row disappears,
    /// the nodes of every row and section are deregistered (values recorded before do not
    /// leak into the rows after), and the rows now in the window appear.
    public func reloadData() {
        cells.reload()
    }

    /// Scrolls so that the row at `indexPath` is the first shown (or as close as the end of
    /// the list allows). Rows leaving the window disappear, rows entering it appear.
    public func scroll(toRow indexPath: TableIndexPath) {
        cells.scroll(to: indexPath)
    }

    /// Selects the row at `indexPath` as a user's tap would: scrolls to it when it is not
    /// shown, records `did-select` on its cell, marks the cell focused and tells the delegate.
    /// - Returns: `false` when the table is not visible or has no such row.
    @discardableResult
    public func selectRow(at indexPath: TableIndexPath) -> Bool {
        cells.select(at: indexPath)
    }

    override func didBecomeVisible() {
        cells.layout()
    }
}

extension TableView: CellLayoutHost {
    func sectionCountFromDataSource() -> Int? {
        dataSource?.numberOfSections(in: self)
    }

    func itemCountFromDataSource(inSection section: Int) -> Int {
        dataSource?.tableView(self, numberOfRowsInSection: section) ?? 0
    }

    func cellFromDataSource(at indexPath: TableIndexPath) -> TableViewCell? {
        dataSource?.tableView(self, cellForRowAt: indexPath)
    }

    func analyticsNameFromDataSource(forSection section: Int) -> String? {
        dataSource?.tableView(self, analyticsNameForSection: section)
    }

    func delegateWillDisplay(_ cell: TableViewCell, at indexPath: TableIndexPath) {
        delegate?.tableView(self, willDisplay: cell, forRowAt: indexPath)
    }

    func delegateDidEndDisplaying(_ cell: TableViewCell, at indexPath: TableIndexPath) {
        delegate?.tableView(self, didEndDisplaying: cell, forRowAt: indexPath)
    }

    func delegateDidSelect(at indexPath: TableIndexPath) {
        delegate?.tableView(self, didSelectRowAt: indexPath)
    }
}
