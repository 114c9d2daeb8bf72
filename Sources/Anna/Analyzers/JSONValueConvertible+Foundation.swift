import CoreJS
import Foundation

// The JSON forms of common Swift values, chosen for a task author who writes JavaScript:
// numbers stay numbers while JavaScript holds them exactly, and values with no JSON type of
// their own take the text JavaScript's own APIs produce and read.

extension Float: JSONValueConvertible {
    /// A number with the digits Swift prints (`0.1`, not `0.10000000149011612`); `null`
    /// when not finite.
    public var jsonValue: JSONValue {
        guard isFinite else { return .null }
        return .number(Double(description) ?? Double(self))
    }
}

extension Int64: JSONValueConvertible {
    /// A number, or past ±(2^53 − 1), where JavaScript numbers lose digits, a decimal string.
    public var jsonValue: JSONValue { JSONValue.integer(self) }
}

extension Int32: JSONValueConvertible {
    /// A number.
    public var jsonValue: JSONValue { .number(Double(self)) }
}

extension UInt: JSONValueConvertible {
    /// A number, or past 2^53 − 1, where JavaScript numbers lose digits, a decimal string.
    public var jsonValue: JSONValue { JSONValue.integer(self) }
}

extension UInt64: JSONValueConvertible {
    /// A number, or past 2^53 − 1, where JavaScript numbers lose digits, a decimal string.
    public var jsonValue: JSONValue { JSONValue.integer(self) }
}

extension UInt32: JSONValueConvertible {
    /// A number.
    public var jsonValue: JSONValue { .number(Double(self)) }
}

extension Decimal: JSONValueConvertible {
    /// A number (the nearest double, as `JSONEncoder` and `Number(text)` give); `null` for NaN.
    public var jsonValue: JSONValue {
        isNaN ? .null : .number(NSDecimalNumber(decimal: self).doubleValue)
    }
}

extension Date: JSONValueConvertible {
    /// An ISO 8601 string in UTC with milliseconds, `2024-05-01T12:30:00.250Z`: what
    /// JavaScript's `date.toJSON()` writes and `new Date(text)` reads.
    public var jsonValue: JSONValue { .string(JSONDateFormat.string(from: self)) }
}

extension UUID: JSONValueConvertible {
    /// Its `uuidString` (upper case, as `Codable` writes it).
    public var jsonValue: JSONValue { .string(uuidString) }
}

extension URL: JSONValueConvertible {
    /// Its `absoluteString`.
    public var jsonValue: JSONValue { .string(absoluteString) }
}

extension JSONValue {
    /// The largest integer JavaScript numbers hold exactly.
    static let maxSafeInteger = 9_007_199_254_740_991

    /// `value` as a number when JavaScript holds it exactly, else as a decimal string.
    static func integer<Integer: BinaryInteger>(_ value: Integer) -> JSONValue {
        if value <= Integer(clamping: maxSafeInteger), value >= Integer(clamping: -maxSafeInteger) {
            return .number(Double(value))
        }
        return .string(String(value))
    }

    /// Encodes `value` with `JSONEncoder` (dates as `Date.jsonValue` writes them,
    /// non-finite numbers as `null`) and reads the result back.
    /// - Throws: ``ValueEncodingError`` when the value cannot be encoded.
    public init(encoding value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(JSONDateFormat.string(from: date))
        }
        do {
            self = try JSONValue(parsing: String(decoding: try encoder.encode(NonFiniteAsNull(value)), as: UTF8.self))
        } catch {
            throw ValueEncodingError(type: String(describing: type(of: value)), reason: String(describing: error))
        }
    }
}

/// A value that could not be turned into JSON for a task.
public struct ValueEncodingError: Error, CustomStringConvertible, Sendable {
    /// The Swift type of the value.
    public let type: String
    /// What the encoder said.
    public let reason: String

    /// `Cannot send a value of type T to tasks: <reason>`.
    public var description: String { "Cannot send a value of type \(type) to tasks: \(reason)" }
}

/// Dates in the form JavaScript's `Date.prototype.toJSON` writes.
enum JSONDateFormat {
    private static let formatter = Locked<ISO8601DateFormatter>(
        {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter
        }())

    static func string(from date: Date) -> String {
        formatter.withLock { $0.string(from: date) }
    }
}

/// Encodes the wrapped value; a top-level non-finite number becomes `null` (nested ones are
/// `JSONEncoder`'s to refuse, which ``ValueEncodingError`` reports).
private struct NonFiniteAsNull<Wrapped: Encodable>: Encodable {
    let wrapped: Wrapped
    init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    func encode(to encoder: any Encoder) throws {
        if let double = wrapped as? Double, !double.isFinite {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        } else if let float = wrapped as? Float, !float.isFinite {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        } else {
            try wrapped.encode(to: encoder)
        }
    }
}
