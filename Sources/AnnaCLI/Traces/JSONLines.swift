import CoreJS

/// Where each value of a JSON text starts: its 1-based line, for messages that point into a
/// trace file. The text is assumed valid (``JSONValue/init(parsing:options:)`` checked it).
indirect enum JSONLines {
    /// A string, number, `true`, `false` or `null`.
    case scalar(line: Int)
    /// An array and its elements.
    case array(line: Int, elements: [JSONLines])
    /// An object and its members, each with the line of its key.
    case object(line: Int, members: [(key: String, keyLine: Int, value: JSONLines)])

    /// The line the value starts on.
    var line: Int {
        switch self {
        case let .scalar(line), let .array(line, _), let .object(line, _): line
        }
    }

    /// The element at `index` of an array.
    subscript(index: Int) -> JSONLines? {
        guard case let .array(_, elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The value of member `key` of an object.
    subscript(key: String) -> JSONLines? {
        guard case let .object(_, members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The line of member `key`'s key, in an object.
    func keyLine(_ key: String) -> Int? {
        guard case let .object(_, members) = self else { return nil }
        return members.first { $0.key == key }?.keyLine
    }

    /// The lines of the values of `text`.
    init(_ text: String) {
        var scanner = Scanner(bytes: Array(text.utf8))
        self = scanner.value()
    }

    /// The 1-based line and column (in Unicode scalars) of the `column`th Unicode scalar of
    /// `text`, as ``JSONParseError`` counts it over the whole text.
    static func position(ofScalar column: Int, in text: String) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for (offset, scalar) in text.unicodeScalars.prefix(max(column - 1, 0)).enumerated() where scalar == "\n" {
            line += 1
            lineStart = offset + 1
        }
        return (line, column - lineStart)
    }

    /// A forward pass over valid JSON, counting line breaks outside strings (a string
    /// cannot hold a raw one).
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0
        var line = 1

        mutating func skipSpace() {
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\n"): line += 1
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
                default: return
                }
                position += 1
            }
        }

        mutating func value() -> JSONLines {
            skipSpace()
            let start = line
            guard position < bytes.count else { return .scalar(line: start) }
            switch bytes[position] {
            case UInt8(ascii: "["):
                position += 1
                var elements: [JSONLines] = []
                while true {
                    skipSpace()
                    guard position < bytes.count, bytes[position] != UInt8(ascii: "]") else { break }
                    elements.append(value())
                    skipSpace()
                    if position < bytes.count, bytes[position] == UInt8(ascii: ",") { position += 1 }
                }
                position += 1
                return .array(line: start, elements: elements)
            case UInt8(ascii: "{"):
                position += 1
                var members: [(String, Int, JSONLines)] = []
                while true {
                    skipSpace()
                    guard position < bytes.count, bytes[position] != UInt8(ascii: "}") else { break }
                    let keyLine = line
                    let key = string()
                    skipSpace()
                    position += 1  // ':'
                    members.append((key, keyLine, value()))
                    skipSpace()
                    if position < bytes.count, bytes[position] == UInt8(ascii: ",") { position += 1 }
                }
                position += 1
                return .object(line: start, members: members)
            case UInt8(ascii: "\""):
                _ = string()
                return .scalar(line: start)
            default:
                while position < bytes.count, !Self.ends(bytes[position]) { position += 1 }
                return .scalar(line: start)
            }
        }

        /// Reads a string, decoded.
        mutating func string() -> String {
            let start = position
            position += 1
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
            }
            position += 1
            let literal = String(decoding: bytes[start..<min(position, bytes.count)], as: UTF8.self)
            do {
                return try JSONValue(parsing: literal).stringValue ?? literal
            } catch {
                return literal  // not reached: the whole text parsed
            }
        }

        static func ends(_ byte: UInt8) -> Bool {
            [UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r")]
                .contains(byte)
        }
    }
}
