// Places in code compiled from another language (TypeScript) reported where its author
// wrote them. The compiled code runs under a URL of its own (`Cart.ts.js` for `Cart.ts`), so
// a place is translated once: a translated place names the original file, which has no map.

extension JavaScriptContext {
    /// Translates places in code run as `generatedURL` through `map` to `originalFile`, in
    /// exceptions' `sourceURL`, `line`, `column` and stacks, and for ``originalPlace(sourceURL:line:column:)``.
    public func registerSourceMap(_ map: SourceMap, generatedURL: String, originalFile: String) {
        sourceMaps[generatedURL] = (originalFile, map)
    }

    /// The original file, line and column of a place in code registered with a source map, or
    /// nil for any other code. `column` is the engine's (a module's first line shifted by its
    /// function header).
    public func originalPlace(sourceURL: String, line: Int, column: Int?) -> (file: String, line: Int, column: Int?)? {
        guard let (file, map) = sourceMaps[sourceURL] else { return nil }
        var engineColumn = column ?? 1
        if line == 1, let shift = firstLineShifts[sourceURL] { engineColumn = max(1, engineColumn - shift) }
        guard let original = map.originalPosition(line: line, column: engineColumn) else { return (file, line, nil) }
        // A syntax error has no column: the original line alone.
        return (file, original.line, column == nil ? nil : original.column)
    }

    /// `stack` with each frame (`function@url:line:column`) in code registered with a source
    /// map pointing at the original file instead.
    public func originalStack(_ stack: String) -> String {
        guard !sourceMaps.isEmpty else { return stack }
        return stack.split(separator: "\n", omittingEmptySubsequences: false).map { frame -> String in
            let text = String(frame)
            guard let place = Self.framePlace(text),
                let original = originalPlace(sourceURL: place.url, line: place.line, column: place.column)
            else { return text }
            return text.prefix(place.prefixLength) + "\(original.file):\(original.line)" + (original.column.map { ":\($0)" } ?? "")
        }.joined(separator: "\n")
    }

    /// The `url:line:column` ending a stack frame, and the length of what precedes the URL.
    static func framePlace(_ frame: String) -> (url: String, line: Int, column: Int, prefixLength: Int)? {
        let parts = frame.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let column = Int(parts[parts.count - 1]), let line = Int(parts[parts.count - 2]) else {
            return nil
        }
        let head = parts.dropLast(2).joined(separator: ":")
        guard let at = head.firstIndex(of: "@") else { return nil }
        let url = String(head[head.index(after: at)...])
        return (url, line, column, head.distance(from: head.startIndex, to: at) + 1)
    }
}
