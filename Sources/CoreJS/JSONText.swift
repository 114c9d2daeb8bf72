import Foundation
import OrderedCollections

extension JSONValue {
    /// Compact JSON text, members in their stored order.
    ///
    /// Integral numbers print without a fraction (`3`, not `3.0`); ``undefined`` prints as
    /// `null` in arrays and at the top level, and is left out of objects.
    public var jsonText: String {
        var output = ""
        Self.write(self, to: &output)
        return output
    }

    private static func write(_ value: JSONValue, to output: inout String) {
        switch value {
        case .undefined, .null: output += "null"
        case let .bool(flag): output += flag ? "true" : "false"
        case let .number(number): output += formatNumber(number)
        case let .string(string): writeString(string, to: &output)
        case let .array(elements):
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                write(element, to: &output)
            }
            output += "]"
        case let .object(members):
            output += "{"
            var first = true
            for (key, member) in members where member != .undefined {
                if !first { output += "," }
                first = false
                writeString(key, to: &output)
                output += ":"
                write(member, to: &output)
            }
            output += "}"
        }
    }

    /// Formats a number the way JavaScript prints it in JSON.
    static func formatNumber(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == number.rounded(), abs(number) < 1e21 {
            if abs(number) < 9.007_199_254_740_992e15 { return String(Int64(number)) }
            return String(format: "%.0f", number)
        }
        return "\(number)"
    }

    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

/// Why a JSON text could not be parsed, with the 1-based column where it went wrong.
public struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What is wrong, e.g. `expected ':' after an object key`.
    public var reason: String
    /// The 1-based column (in Unicode scalars) where parsing stopped.
    public var column: Int

    /// Creates a parse error.
    public init(reason: String, column: Int) {
        self.reason = reason
        self.column = column
    }

    /// `column N: reason`.
    public var description: String { "column \(column): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON text, keeping the order of object keys.
    ///
    /// - Throws: ``JSONParseError`` naming the column of the first problem.
    public init(parsing text: String) throws {
        var parser = JSONParser(scalars: Array(text.unicodeScalars))
        self = try parser.parseDocument()
    }
}

private struct JSONParser {
    let scalars: [Unicode.Scalar]
    var position = 0
    var depth = 0

    init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    mutating func parseDocument() throws -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position < scalars.count { throw failure("unexpected text after the JSON value") }
        return value
    }

    private func failure(_ reason: String) -> JSONParseError {
        JSONParseError(reason: reason, column: position + 1)
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private mutating func skipWhitespace() {
        while let scalar = current, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
            position += 1
        }
    }

    private mutating func expect(_ literal: String, value: JSONValue) throws -> JSONValue {
        for scalar in literal.unicodeScalars {
            guard current == scalar else { throw failure("invalid literal, expected '\(literal)'") }
            position += 1
        }
        return value
    }

    private mutating func parseValue() throws -> JSONValue {
        guard let scalar = current else { throw failure("unexpected end of text") }
        switch scalar {
        case "{": return try parseObject()
        case "[": return try parseArray()
        case "\"": return .string(try parseString())
        case "t": return try expect("true", value: .bool(true))
        case "f": return try expect("false", value: .bool(false))
        case "n": return try expect("null", value: .null)
        case "-", "0"..."9": return try parseNumber()
        default: throw failure("unexpected character '\(scalar)'")
        }
    }

    private mutating func enterContainer() throws {
        depth += 1
        if depth > 512 { throw failure("nesting deeper than 512 levels") }
    }

    private mutating func parseObject() throws -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        position += 1
        var members = OrderedDictionary<String, JSONValue>()
        skipWhitespace()
        if current == "}" {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == "\"" else { throw failure("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard current == ":" else { throw failure("expected ':' after an object key") }
            position += 1
            skipWhitespace()
            members[key] = try parseValue()
            skipWhitespace()
            switch current {
            case ",": position += 1
            case "}":
                position += 1
                return .object(members)
            default: throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == "]" {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case ",": position += 1
            case "]":
                position += 1
                return .array(elements)
            default: throw failure("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func parseHexQuad() throws -> UInt32 {
        guard position + 4 <= scalars.count else { throw failure("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = UInt32(String(scalars[position]), radix: 16) else {
                throw failure("invalid \\u escape")
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    private mutating func parseString() throws -> String {
        position += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = current else { throw failure("unterminated string") }
            position += 1
            switch scalar {
            case "\"": return String(result)
            case "\\":
                guard let escape = current else { throw failure("unterminated string") }
                position += 1
                switch escape {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "/": result.append("/")
                case "b": result.append("\u{08}")
                case "f": result.append("\u{0C}")
                case "n": result.append("\n")
                case "r": result.append("\r")
                case "t": result.append("\t")
                case "u":
                    var code = try parseHexQuad()
                    if (0xD800...0xDBFF).contains(code), current == "\\",
                        position + 1 < scalars.count, scalars[position + 1] == "u"
                    {
                        let saved = position
                        position += 2
                        let low = try parseHexQuad()
                        if (0xDC00...0xDFFF).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            position = saved
                        }
                    }
                    result.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: throw failure("invalid escape '\\\(escape)'")
                }
            case _ where scalar.value < 0x20:
                throw failure("control character in a string")
            default: result.append(scalar)
            }
        }
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = position
        if current == "-" { position += 1 }
        guard let first = current, ("0"..."9").contains(first) else { throw failure("invalid number") }
        if first == "0" {
            position += 1
        } else {
            while let digit = current, ("0"..."9").contains(digit) { position += 1 }
        }
        if current == "." {
            position += 1
            guard let digit = current, ("0"..."9").contains(digit) else { throw failure("invalid number") }
            while let digit = current, ("0"..."9").contains(digit) { position += 1 }
        }
        if current == "e" || current == "E" {
            position += 1
            if current == "+" || current == "-" { position += 1 }
            guard let digit = current, ("0"..."9").contains(digit) else { throw failure("invalid number") }
            while let digit = current, ("0"..."9").contains(digit) { position += 1 }
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[start..<position])
        guard let number = Double(String(text)) else { throw failure("invalid number") }
        return .number(number)
    }
}
