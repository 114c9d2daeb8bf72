import Anna

/// A row of a ``TableView``, reused for other rows once it scrolls out.
///
/// The table adds the cell's analyzer as its sub-analyzer `cell` with the row as index (under
/// the section's node when the data source names sections), so a cell needs no analytics code
/// of its own. When the cell is reused at another row its node moves there: the old node is
/// deregistered and the next events go to the new index. A cell that stays in the reuse pool
/// after the table laid out its rows has no node until it is reused.
///
/// Subclasses add content and reset it in ``prepareForReuse()``, which runs once the node has
/// moved, so a reset observed value is recorded on the new row:
///
/// ```swift
/// final class ProductCell: TableViewCell {
///     let name = ObservableValue<String?>(nil)
///     required init(reuseIdentifier: String?) {
///         super.init(reuseIdentifier: reuseIdentifier)
///         analyzer.observe(name, for: "name")
///     }
///     override func prepareForReuse() {
///         name.value = nil
///     }
/// }
/// ```
@MainActor
open class TableViewCell: View {
    /// The identifier the table reuses the cell by; a cell without one is not reused.
    public let reuseIdentifier: String?
    /// Where the cell is shown, or `nil` while it waits for reuse.
    public internal(set) var indexPath: TableIndexPath?
    /// Where the table last attached the cell's analyzer.
    var analyzerIndexPath: TableIndexPath?

    /// Creates a cell; a ``TableView`` calls this for a class registered with it.
    public required init(reuseIdentifier: String?) {
        self.reuseIdentifier = reuseIdentifier
        super.init()
    }

    /// Called when the table takes the cell from its reuse pool for another row, after its
    /// analyzer was attached there.
    open func prepareForReuse() {}
}
