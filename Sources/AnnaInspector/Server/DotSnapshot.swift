import CoreJS

/// The JSON snapshot of a focus tree (`{"root": node}`, each node with its `children`) as a Graphviz digraph: a box per node (`name [index]`),
/// an edge per parent link. A tree deeper than ``JSONValue/maximumDepth`` levels fails to parse.
enum DotSnapshot {
    static func render(json: String) throws -> String {
        let snapshot = try JSONValue(parsing: json)
        let root = snapshot["root"] ?? snapshot
        var lines = ["digraph focus {", "  rankdir=TB;", "  node [shape=box, fontname=\"Helvetica\"];"]
        var stack: [(node: JSONValue, parent: String?)] = [(root, nil)]
        var next = 0
        while let (node, parent) = stack.popLast() {
            next += 1
            let id = "n\(next)"
            var label = node["name"]?.stringValue ?? "?"
            if let index = node["index"]?.numberValue { label += " [\(Int(index))]" }
            lines.append("  \(id) [label=\(quote(label))];")
            if let parent { lines.append("  \(parent) -> \(id);") }
            for child in (node["children"]?.arrayValue ?? []).reversed() { stack.append((child, id)) }
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// A DOT string literal.
    static func quote(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
