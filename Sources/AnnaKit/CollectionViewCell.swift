import Anna

/// An item of a ``CollectionView``, reused for other items once it scrolls out.
///
/// Its node is keyed by the item, not by the cell (see ``ReusableCell``); the collection view
/// makes cells of the class registered for a reuse identifier.
@MainActor
open class CollectionViewCell: ReusableCell {}
