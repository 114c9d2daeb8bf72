/// The position of a row in a ``TableView``: a section and a row in it.
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

    /// Sections first, then rows.
    public static func < (lhs: TableIndexPath, rhs: TableIndexPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    /// `section.row`, e.g. `0.3`.
    public var description: String { "\(section).\(row)" }
}
