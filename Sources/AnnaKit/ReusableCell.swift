import Anna

/// A cell of a ``TableView`` or a ``CollectionView``, reused for other rows or items once it
/// scrolls out.
///
/// The view attaches the cell's analyzer under its own at the cell's position (see
/// ``TableView``), so a cell needs no analytics code of its own. The node belongs to the
/// position, not to the cell: when the cell scrolls out or is reused elsewhere, the node
/// stays where it was, with its values, and the cell takes over the node of its new position.
/// Between the two, what the cell records waits and goes to the new position's node.
///
/// A cell takes its parent only from its view, as the reference's cells do: it never looks
/// up the responder chain for one (its parent constitutor is `nil`). So a cell shown by a
/// view whose analyzer is not enabled records nothing, even when it names itself, and a
/// view in such a cell finds no parent past the cell.
///
/// Subclasses add content and reset it in ``prepareForReuse()``:
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
open class ReusableCell: View {
    /// The identifier the cell is reused by; a cell without one is not reused.
    public let reuseIdentifier: String?
    /// Where the cell is shown, or `nil` while it waits for reuse.
    public internal(set) var indexPath: TableIndexPath?
    /// Where the view last attached the cell's analyzer.
    var analyzerIndexPath: TableIndexPath?

    /// Creates a cell; a table or collection view calls this for a class registered with it.
    public required init(reuseIdentifier: String?) {
        self.reuseIdentifier = reuseIdentifier
        super.init()
    }

    /// No parent constitutor: only the table or collection view attaches the cell's analyzer.
    override var computedParentConstitutor: ResponderObject? { nil }

    /// Called when the view takes the cell from its reuse pool for another position; what
    /// it records here reaches the new position's node.
    open func prepareForReuse() {}
}
