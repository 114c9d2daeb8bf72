import Anna

/// A collection of items in sections, showing a window of ``visibleItemCount`` consecutive
/// items with reusable cells: the kit's `UICollectionView`.
///
/// It shows its items exactly as a ``TableView`` shows its rows (one implementation serves
/// both, as the reference hooks both the same way): items are laid out while the view is
/// visible, before the controllers above it get `viewDidAppear`. Showing an item asks the
/// data source for its cell, attaches the cell's analyzer at the item (named by the cell's
/// own ``/Anna/Analyzing/enable(naming:)``, else ``cellAnalyticsName``, with the item as index,
/// under a keyed section node when the data source names the section; the section node
/// records `ana-appeared` when it is made), adds the cell, recording `ana-appeared`, and only
/// then calls the delegate's `willDisplay`.
///
/// An item's node is keyed by its index path and kept when its cell scrolls out or is
/// reused, with its values; ``reloadData()`` deregisters every item and section node.
/// ``selectItem(at:)`` records `did-select` on the cell and marks it focused.
///
/// ```swift
/// let grid = CollectionView(visibleItemCount: 6)
/// grid.register(CollectionViewCell.self, forCellWithReuseIdentifier: "Tile")
/// grid.dataSource = self
/// grid.delegate = self
/// ```
@MainActor
open class CollectionView: View {
    /// Provides sections, items and cells; held weakly.
    public weak var dataSource: (any CollectionViewDataSource)?
    /// Hears about items shown, hidden and selected; held weakly.
    public weak var delegate: (any CollectionViewDelegate)?
    /// The name of the cells' nodes; `cell` by default.
    public var cellAnalyticsName = "cell"

    private lazy var cells = CellLayout(host: self)

    /// Creates a collection view that shows `visibleItemCount` items at a time.
    public init(visibleItemCount: Int = 10) {
        super.init()
        cells.visibleCount = visibleItemCount
    }

    /// How many items are shown at once (never fewer than 0).
    public var visibleItemCount: Int {
        get { cells.visibleCount }
        set { cells.visibleCount = newValue }
    }

    /// The selected items (after ``selectItem(at:)``: the last one selected).
    public var indexPathsForSelectedItems: [CollectionIndexPath] {
        cells.selectedIndexPath.map { [$0] } ?? []
    }

    // MARK: - Cells

    /// Registers the class of the cells made for `identifier` when the pool has none.
    public func register(_ cellClass: CollectionViewCell.Type, forCellWithReuseIdentifier identifier: String) {
        cells.register(cellClass, for: identifier)
    }

    /// A cell for the item at `indexPath`: one waiting for reuse (after its
    /// ``ReusableCell/prepareForReuse()``), or a new one of the registered class.
    ///
    /// A reused cell leaves its old item's node first (the node stays with that item): what
    /// it records while resetting and what the data source records while configuring it
    /// waits, and goes to the new item's node once the view attaches it there.
    /// - Precondition: a class is registered for `identifier`.
    public func dequeueReusableCell(
        withReuseIdentifier identifier: String, for indexPath: CollectionIndexPath
    ) -> CollectionViewCell {
        cells.dequeueCell(withIdentifier: identifier)
    }

    /// The cell shown at `indexPath`, or `nil` when the item is not shown.
    public func cellForItem(at indexPath: CollectionIndexPath) -> CollectionViewCell? {
        cells.cell(at: indexPath)
    }

    /// The items shown now, in order.
    public var indexPathsForVisibleItems: [CollectionIndexPath] {
        cells.visibleIndexPaths
    }

    /// The cells shown now, in item order.
    public var visibleCells: [CollectionViewCell] {
        cells.visibleCells
    }

    // MARK: - Items

    /// The number of sections, as the data source last told.
    public var numberOfSections: Int {
        cells.sectionCount
    }

    /// The number of items in `section`, as the data source last told.
    public func numberOfItems(inSection section: Int) -> Int {
        cells.itemCount(inSection: section)
    }

    /// Forgets the items and shows them again from the data source: every shown item
    /// disappears, the nodes of every item and section are deregistered (values recorded
    /// before do not leak into the items after), and the items now in the window appear.
    public func reloadData() {
        cells.reload()
    }

    /// Scrolls so that the item at `indexPath` is the first shown (or as close as the end
    /// allows). Items leaving the window disappear, items entering it appear.
    public func scrollToItem(at indexPath: CollectionIndexPath) {
        cells.scroll(to: indexPath)
    }

    /// Selects the item at `indexPath` as a user's tap would: scrolls to it when it is not
    /// shown, records `did-select` on its cell, marks the cell focused and tells the delegate.
    /// - Returns: `false` when the view is not visible or has no such item.
    @discardableResult
    public func selectItem(at indexPath: CollectionIndexPath) -> Bool {
        cells.select(at: indexPath)
    }

    override func didBecomeVisible() {
        cells.layout()
    }
}

extension CollectionView: CellLayoutHost {
    func sectionCountFromDataSource() -> Int? {
        dataSource?.numberOfSections(in: self)
    }

    func itemCountFromDataSource(inSection section: Int) -> Int {
        dataSource?.collectionView(self, numberOfItemsInSection: section) ?? 0
    }

    func cellFromDataSource(at indexPath: TableIndexPath) -> CollectionViewCell? {
        dataSource?.collectionView(self, cellForItemAt: indexPath)
    }

    func analyticsNameFromDataSource(forSection section: Int) -> String? {
        dataSource?.collectionView(self, analyticsNameForSection: section)
    }

    func delegateWillDisplay(_ cell: CollectionViewCell, at indexPath: TableIndexPath) {
        delegate?.collectionView(self, willDisplay: cell, forItemAt: indexPath)
    }

    func delegateDidEndDisplaying(_ cell: CollectionViewCell, at indexPath: TableIndexPath) {
        delegate?.collectionView(self, didEndDisplaying: cell, forItemAt: indexPath)
    }

    func delegateDidSelect(at indexPath: TableIndexPath) {
        delegate?.collectionView(self, didSelectItemAt: indexPath)
    }
}
