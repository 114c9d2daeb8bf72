import Anna

/// What a ``CollectionView`` shows: its sections, items and cells.
@MainActor
public protocol CollectionViewDataSource: AnyObject {
    /// The number of sections; 1 by default.
    func numberOfSections(in collectionView: CollectionView) -> Int
    /// The number of items in `section`.
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int
    /// The cell for the item at `indexPath`, from
    /// ``CollectionView/dequeueReusableCell(withReuseIdentifier:for:)``.
    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: CollectionIndexPath) -> CollectionViewCell
    /// The name of the focus-path node for `section`, or `nil` (the default) to hang the
    /// section's cells directly under the collection view. A named section is a keyed node
    /// `collection/<name>` with the section number as index.
    func collectionView(_ collectionView: CollectionView, analyticsNameForSection section: Int) -> String?
}

extension CollectionViewDataSource {
    /// One section.
    public func numberOfSections(in collectionView: CollectionView) -> Int { 1 }
    /// No section nodes.
    public func collectionView(_ collectionView: CollectionView, analyticsNameForSection section: Int) -> String? { nil }
}
