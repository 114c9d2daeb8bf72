/// The position of a row in a ``TableView`` or of an item in a ``CollectionView``: a section
/// and a row (item) in it.
///
/// One type serves both views, as UIKit's `IndexPath` does; ``CollectionIndexPath`` is the
/// name the collection view's API uses, with ``item`` for ``row``.
public struct TableIndexPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The section.
    public var section: Int
    /// The row within the section.
    public var row: Int

    /// Creates an index path.
    public init(row: Int, section: Int = 0) {
        self.row = row
        self.section = section
    }

    /// Creates the index path of an item in a collection view.
    public init(item: Int, section: Int = 0) {
        self.init(row: item, section: section)
    }

    /// The item within the section: the same number as ``row``.
    public var item: Int {
        get { row }
        set { row = newValue }
    }

    /// Sections first, then rows.
    public static func < (lhs: TableIndexPath, rhs: TableIndexPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    /// `section.row`, e.g. `0.3`.
    public var description: String { "\(section).\(row)" }
}

/// The position of an item in a ``CollectionView``: the same type as a table's index path.
public typealias CollectionIndexPath = TableIndexPath
