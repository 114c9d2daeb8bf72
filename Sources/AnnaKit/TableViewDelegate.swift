import Anna

/// What a ``TableView`` tells about its rows being shown, hidden and selected.
@MainActor
public protocol TableViewDelegate: AnyObject {
    /// The cell is about to be shown at `indexPath` (its analyzer is attached and it already
    /// recorded `ana-appeared`).
    func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: TableIndexPath)
    /// The cell stopped being shown at `indexPath` (it already disappeared).
    func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: TableIndexPath)
    /// The row was selected (after `did-select` was recorded and the cell marked focused).
    func tableView(_ tableView: TableView, didSelectRowAt indexPath: TableIndexPath)
}

extension TableViewDelegate {
    /// Does nothing.
    public func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: TableIndexPath) {}
    /// Does nothing.
    public func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: TableIndexPath) {}
    /// Does nothing.
    public func tableView(_ tableView: TableView, didSelectRowAt indexPath: TableIndexPath) {}
}
