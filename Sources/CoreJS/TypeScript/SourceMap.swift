/// The positions of a source map (version 3, one source): for a place in generated code, the
/// place in the file it was generated from.
///
/// Built from the map's `mappings` (base-64 VLQ); names and sources are not kept, the
/// original file being known to whoever holds the map. Lines and columns are 1-based in the
/// API, as engines and editors count them; columns count UTF-16 units, as both do.
public struct SourceMap: Sendable, Equatable {
    /// One mapped place: from a column of a generated line to a line and column of the source
    /// (all 0-based, as the map stores them).
    struct Segment: Sendable, Equatable {
        var generatedColumn: Int
        var line: Int
        var column: Int
    }

    /// The segments of each generated line, by column.
    private let lines: [[Segment]]

    /// Reads a map's JSON text.
    /// - Throws: ``SourceMapError`` when the text is not JSON, has no `mappings` string, or a
    ///   segment is not valid VLQ.
    public init(json: String) throws(SourceMapError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: json)
        } catch {
            throw SourceMapError(reason: "not JSON: \(error)")
        }
        guard let mappings = value["mappings"]?.stringValue else {
            throw SourceMapError(reason: "no \"mappings\" string")
        }
        try self.init(mappings: mappings)
    }

    /// Decodes the `mappings` field of a map.
    /// - Throws: ``SourceMapError`` when a segment is not valid VLQ.
    public init(mappings: String) throws(SourceMapError) {
        var lines: [[Segment]] = [[]]
        var fields: [Int] = []
        var value = 0
        var shift = 0
        // Every field but the generated column is relative to the previous segment of the map.
        var source = 0
        var line = 0
        var column = 0
        var generatedColumn = 0
        func endSegment() throws(SourceMapError) {
            guard shift == 0 else { throw SourceMapError(reason: "a segment ends inside a number") }
            guard !fields.isEmpty else { return }
            guard fields.count == 1 || fields.count >= 4 else {
                throw SourceMapError(reason: "a segment has \(fields.count) fields (1, 4 or 5 expected)")
            }
            // Wrapping: a damaged map (a cache file, say) gives wrong places, never a trap.
            generatedColumn &+= fields[0]
            if fields.count >= 4 {
                source &+= fields[1]
                line &+= fields[2]
                column &+= fields[3]
                if (0..<Self.largest).contains(generatedColumn), (0..<Self.largest).contains(line), (0..<Self.largest).contains(column) {
                    lines[lines.count - 1].append(Segment(generatedColumn: generatedColumn, line: line, column: column))
                }
            }
            fields.removeAll(keepingCapacity: true)
        }
        for byte in mappings.utf8 {
            switch byte {
            case UInt8(ascii: ";"):
                try endSegment()
                lines.append([])
                generatedColumn = 0
            case UInt8(ascii: ","):
                try endSegment()
            default:
                guard let digit = Self.base64[Int(byte)] else {
                    throw SourceMapError(reason: "'\(Character(Unicode.Scalar(byte)))' is not a base-64 VLQ digit")
                }
                guard shift <= 60 else { throw SourceMapError(reason: "a number has more than 64 bits") }
                value |= (digit & 31) << shift
                if digit & 32 != 0 {
                    shift += 5
                } else {
                    fields.append(value & 1 == 1 ? -(value >> 1) : value >> 1)
                    value = 0
                    shift = 0
                }
            }
        }
        try endSegment()
        self.lines = lines.map { $0.sorted { $0.generatedColumn < $1.generatedColumn } }
    }

    /// The source place of generated `line` and `column` (1-based): in the last segment at or
    /// before the column on that line (as far into it as the column is), else at the line's
    /// first segment, else at the last segment of the nearest line above with one. Nil when
    /// nothing at or above the line is mapped.
    public func originalPosition(line: Int, column: Int) -> (line: Int, column: Int)? {
        guard line >= 1 else { return nil }
        let column = min(max(column, 1), Self.largest)
        if line - 1 < lines.count, let first = lines[line - 1].first {
            // Within a segment the text is the source's, copied: the column moves along with it.
            guard let found = lines[line - 1].last(where: { $0.generatedColumn <= column - 1 }) else {
                return (first.line + 1, first.column + 1)
            }
            return (found.line + 1, found.column + 1 + (column - 1 - found.generatedColumn))
        }
        for segments in lines.prefix(line - 1).reversed() {
            if let last = segments.last { return (last.line + 1, last.column + 1) }
        }
        return nil
    }

    /// Larger lines and columns are no places (a damaged map): arithmetic on them cannot overflow.
    static let largest = 1 << 31

    /// The value of each base-64 digit by its ASCII code (nil: not a digit).
    private static let base64: [Int?] = {
        var table = [Int?](repeating: nil, count: 256)
        for (value, scalar) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".unicodeScalars.enumerated() {
            table[Int(scalar.value)] = value
        }
        return table
    }()
}

/// A source map that cannot be read.
public struct SourceMapError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with it.
    public var reason: String
    /// `invalid source map: <reason>`.
    public var description: String { "invalid source map: \(reason)" }
}
