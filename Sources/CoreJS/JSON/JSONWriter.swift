// Writing JSON text: `JSONValue.jsonText`, with numbers laid out as JavaScript prints them.
import Foundation

extension JSONValue {
    /// Compact JSON text, members in their stored order.
    ///
    /// Numbers print as `JSON.stringify` prints them: integral ones without a fraction (`3`,
    /// not `3.0`), large ones with their shortest digits (2^60 is `1152921504606847000`).
    /// ``undefined`` prints as `null` in arrays and at the top level, and is left out of objects.
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
            for (key, member) in members where !member.isUndefined {
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
        // Below 2^53 every integer is exact and JavaScript prints all its digits; above,
        // it prints the shortest digits that round-trip (2^60 is 1152921504606847000).
        if number == number.rounded(), abs(number) < 0x1p53 { return String(Int64(number)) }
        return javaScriptLayout(of: number)
    }

    /// `Number.prototype.toString` (ECMAScript's Number::toString): Swift's shortest
    /// round-trip digits, laid out as JavaScript does (`0.00001`, not `1e-05`; `1e-7`).
    private static func javaScriptLayout(of number: Double) -> String {
        let text = "\(abs(number))"  // the same shortest digits, in Swift's layout: "1.2e-05"
        let parts = text.split(separator: "e")
        let mantissa = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        let whole = mantissa[0]
        let fraction = mantissa.count > 1 ? mantissa[1] : ""
        var digits = Array(whole + fraction)
        // The decimal point stands after `point` digits (negative: zeros before them).
        var point = whole.count + (parts.count > 1 ? Int(parts[1]) ?? 0 : 0)
        while digits.count > 1, digits.first == "0" {
            digits.removeFirst()
            point -= 1
        }
        while digits.count > 1, digits.last == "0" { digits.removeLast() }
        let shown = String(digits)
        let laidOut: String
        if digits.count <= point, point <= 21 {
            laidOut = shown + String(repeating: "0", count: point - digits.count)
        } else if 0 < point, point <= 21 {
            laidOut = shown.prefix(point) + "." + shown.dropFirst(point)
        } else if -6 < point, point <= 0 {
            laidOut = "0." + String(repeating: "0", count: -point) + shown
        } else {
            let exponent = point - 1
            laidOut =
                shown.prefix(1) + (digits.count > 1 ? "." + shown.dropFirst() : "")
                + "e" + (exponent < 0 ? "-" : "+") + String(abs(exponent))
        }
        return number < 0 ? "-" + laidOut : laidOut
    }

    /// Writes `string` quoted. Only ASCII bytes are escaped, and no byte of a multi-byte
    /// UTF-8 sequence is ASCII, so the runs between escapes are copied whole.
    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        let bytes = string.utf8
        var runStart = bytes.startIndex
        var index = runStart
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output += string[runStart..<index]
                output += escape(byte)
                runStart = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        output += string[runStart...]
        output += "\""
    }

    /// The escape of an ASCII byte JSON does not allow as it is.
    private static func escape(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "\""): "\\\""
        case UInt8(ascii: "\\"): "\\\\"
        case UInt8(ascii: "\n"): "\\n"
        case UInt8(ascii: "\r"): "\\r"
        case UInt8(ascii: "\t"): "\\t"
        case 0x08: "\\b"
        case 0x0C: "\\f"
        default: String(format: "\\u%04x", byte)
        }
    }
}
