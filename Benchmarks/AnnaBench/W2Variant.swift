/// One W2 variant: a tree, a task set, and where the events go.
struct W2Variant: Equatable {
    /// Nodes, nominal (the tree has the nearest whole number of screens).
    var nodes: Int
    /// Patterns in the scale task set.
    var patterns: Int
    /// Events on every cell of the tree instead of W1's 1,000.
    var everyCell: Bool

    /// Screens of 22 nodes, plus `__root__` and `app`, closest to ``nodes``.
    var screens: Int { max(1, Int((Double(nodes - 2) / Double(BenchScreen.nodeCount)).rounded())) }

    /// `nodes=100000,patterns=100`, with `,cells=all` for ``everyCell``.
    var name: String { "nodes=\(nodes),patterns=\(patterns)" + (everyCell ? ",cells=all" : "") }
}
