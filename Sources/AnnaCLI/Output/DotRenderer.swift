import CoreJS

/// Renders the JSON snapshot of a focus tree as a Graphviz digraph.
enum DotRenderer {
    /// One box per node (`name [index]`, its last event), one edge per parent link.
    static func render(snapshotJSON: String) throws -> String {
        let snapshot = try JSONValue(parsing: snapshotJSON)
        var lines = ["digraph focus {", "  rankdir=TB;", "  node [shape=box, fontname=\"Helvetica\"];"]
        if let root = snapshot["root"], root != .null {
            add(root, parent: nil, to: &lines)
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private static func add(_ node: JSONValue, parent: String?, to lines: inout [String]) {
        let id = node["id"].map(text) ?? "?"
        var label = node["name"]?.stringValue ?? "?"
        if let index = node["index"]?.numberValue { label += " [\(JSONValue.number(index).jsonText)]" }
        if let last = node["events"]?.arrayValue?.last?["name"]?.stringValue { label += "\nlast: \(last)" }
        lines.append("  \(quote(id)) [label=\(quote(label))];")
        if let parent { lines.append("  \(quote(parent)) -> \(quote(id));") }
        for child in node["children"]?.arrayValue ?? [] { add(child, parent: id, to: &lines) }
    }

    private static func text(_ value: JSONValue) -> String {
        value.stringValue ?? value.jsonText
    }

    /// A DOT string literal.
    static func quote(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
