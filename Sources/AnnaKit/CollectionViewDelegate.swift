import Anna

/// What a ``CollectionView`` tells about its items being shown, hidden and selected.
@MainActor
public protocol CollectionViewDelegate: AnyObject {
    /// The cell is about to be shown at `indexPath` (its analyzer is attached and it already
    /// recorded `ana-appeared`).
    func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: CollectionIndexPath)
    /// The cell stopped being shown at `indexPath` (it already disappeared).
    func collectionView(
        _ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: CollectionIndexPath)
    /// The item was selected (after `did-select` was recorded and the cell marked focused).
    func collectionView(_ collectionView: CollectionView, didSelectItemAt indexPath: CollectionIndexPath)
}

extension CollectionViewDelegate {
    /// Does nothing.
    public func collectionView(
        _ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: CollectionIndexPath
    ) {}
    /// Does nothing.
    public func collectionView(
        _ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: CollectionIndexPath
    ) {}
    /// Does nothing.
    public func collectionView(_ collectionView: CollectionView, didSelectItemAt indexPath: CollectionIndexPath) {}
}
