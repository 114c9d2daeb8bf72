import Anna

/// A row of a ``TableView``, reused for other rows once it scrolls out.
///
/// Its node is keyed by the row, not by the cell (see ``ReusableCell``). A data source that
/// makes its cells itself may name them: `cell.analyzer.enable(naming: "row")` names the
/// row's node, which keeps the row as its index.
@MainActor
open class TableViewCell: ReusableCell {}
