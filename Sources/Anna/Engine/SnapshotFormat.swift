/// How a snapshot of the focus-path tree is written.
public enum SnapshotFormat: String, Sendable, CaseIterable, Codable {
    /// The reference library's XML-like markup (`<__root__ id="…" class="ana-node" …>`).
    case markup
    /// The same content as JSON, for tools.
    case json
}
