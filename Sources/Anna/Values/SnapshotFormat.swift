/// How a snapshot of the focus-path tree is written.
///
/// Both formats take a tree of any depth, in text linear in its nodes: the markup's indent
/// stops growing at level 32, and the JSON nests as deep as the tree (so a reader needs a
/// parser without a nesting limit: `JSONValue(parsing:)` stops at 512 levels).
public enum SnapshotFormat: String, Sendable, CaseIterable, Codable {
    /// The reference library's XML-like markup (`<__root__ id="…" class="ana-node" …>`).
    case markup
    /// The same content as JSON, for tools.
    case json
}
