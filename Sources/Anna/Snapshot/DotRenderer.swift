import CoreJS

/// Renders the JSON snapshot of a focus tree as a Graphviz digraph.
///
/// The snapshot nests as deep as the tree, so it is read with a ``JSONScanner`` and a stack of
/// the nodes open, not parsed into a ``JSONValue`` (512 levels at most) nor walked by
/// recursion: a tree of any depth renders, in time and memory linear in its nodes.
package enum DotRenderer {
    /// One box per node (`name [index]`, its last event), one edge per parent link.
    package static func render(snapshotJSON: String) throws -> String {
        var text = snapshotJSON
        let boxes = try text.withUTF8 { bytes in
            var scanner = JSONScanner(bytes)
            return try readBoxes(&scanner)
        }
        var lines = ["digraph focus {", "  rankdir=TB;", "  node [shape=box, fontname=\"Helvetica\"];"]
        for box in boxes {
            lines.append("  \(quote(box.id)) [label=\(quote(box.label))];")
            if let parent = box.parent { lines.append("  \(quote(boxes[parent].id)) -> \(quote(box.id));") }
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

    /// What a node's box shows, and where its parent's box is in the list.
    private struct Box {
        var parent: Int?
        var id = "?"
        var name = "?"
        var index: Double?
        var lastEvent: String?

        var label: String {
            var label = name
            if let index { label += " [\(JSONValue.number(index).jsonText)]" }
            if let lastEvent { label += "\nlast: \(lastEvent)" }
            return label
        }
    }

    /// The boxes of `{"root": node | null}` in document order (a parent before its children).
    private static func readBoxes(_ scanner: inout JSONScanner) throws -> [Box] {
        var boxes: [Box] = []
        try scanner.expect("{", "a snapshot object")
        var first = true
        while !scanner.take("}") {
            if !first { try scanner.expect(",", "',' or '}' in an object") }
            first = false
            if try scanner.key() == "root", !scanner.next(is: "n") {
                try readTree(&scanner, into: &boxes)
            } else {
                try scanner.skipValue()
            }
        }
        try scanner.end()
        return boxes
    }

    /// Reads a node and its descendants, keeping the nodes open on a stack of its own.
    private static func readTree(_ scanner: inout JSONScanner, into boxes: inout [Box]) throws {
        /// A node being read: its box, and whether its members or its children come next.
        struct Open {
            var box: Int
            var inChildren = false
            var first = true  // no member (or child) read yet
        }
        var stack: [Open] = []
        /// Opens the node at the scanner: a box, and the node on the stack (a value that is
        /// not an object is a box without facts).
        func openNode(parent: Int?) throws {
            boxes.append(Box(parent: parent))
            if scanner.take("{") { stack.append(Open(box: boxes.count - 1)) } else { try scanner.skipValue() }
        }
        try openNode(parent: nil)
        while var node = stack.popLast() {
            if node.inChildren {
                if node.first {
                    node.first = false
                } else if scanner.take("]") {
                    node.inChildren = false
                    stack.append(node)
                    continue
                } else {
                    try scanner.expect(",", "',' or ']' in an array")
                }
                stack.append(node)
                try openNode(parent: node.box)
                continue
            }
            if scanner.take("}") { continue }  // the node is read
            if node.first { node.first = false } else { try scanner.expect(",", "',' or '}' in an object") }
            switch try scanner.key() {
            case "id":
                let id = try scanner.value()
                boxes[node.box].id = id.stringValue ?? id.jsonText
            case "name": boxes[node.box].name = try scanner.value().stringValue ?? "?"
            case "index": boxes[node.box].index = try scanner.value().numberValue
            case "events": boxes[node.box].lastEvent = try lastEventName(&scanner)
            case "children":
                if !scanner.take("[") {
                    try scanner.skipValue()
                } else if !scanner.take("]") {
                    node.inChildren = true
                    node.first = true
                }
            default: try scanner.skipValue()
            }
            stack.append(node)
        }
    }

    /// The `name` of the last element of an array of events (nil for an empty array, an
    /// element without a string name, or a value that is not an array).
    private static func lastEventName(_ scanner: inout JSONScanner) throws -> String? {
        guard scanner.take("[") else {
            try scanner.skipValue()
            return nil
        }
        var last: String?
        var first = true
        while !scanner.take("]") {
            if !first { try scanner.expect(",", "',' or ']' in an array") }
            first = false
            last = nil
            guard scanner.take("{") else {
                try scanner.skipValue()
                continue
            }
            var firstMember = true
            while !scanner.take("}") {
                if !firstMember { try scanner.expect(",", "',' or '}' in an object") }
                firstMember = false
                if try scanner.key() == "name" { last = try scanner.value().stringValue } else { try scanner.skipValue() }
            }
        }
        return last
    }
}
