import Anna

/// What a ``TableView`` shows: its sections, rows and cells.
@MainActor
public protocol TableViewDataSource: AnyObject {
    /// The number of sections; 1 by default.
    func numberOfSections(in tableView: TableView) -> Int
    /// The number of rows in `section`.
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int
    /// The cell for the row at `indexPath`, usually from
    /// ``TableView/dequeueReusableCell(withIdentifier:for:)``.
    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell
    /// The name of the focus-path node for `section`, or `nil` (the default) to hang the
    /// section's cells directly under the table. A named section is a keyed node
    /// `table/<name>` with the section number as index.
    func tableView(_ tableView: TableView, analyticsNameForSection section: Int) -> String?
}

extension TableViewDataSource {
    /// One section.
    public func numberOfSections(in tableView: TableView) -> Int { 1 }
    /// No section nodes.
    public func tableView(_ tableView: TableView, analyticsNameForSection section: Int) -> String? { nil }
}
