/// Text from an input as an error message quotes it: characters that do not show (controls,
/// byte order marks and other format characters, line and paragraph separators, spaces other
/// than U+0020, private-use and unassigned code points) are written `<U+FEFF>`, and text past
/// `limit` characters is cut with `…`, so a message never hides or floods what it points at.
///
/// ```swift
/// "unknown op '\(VisibleText("\u{FEFF}event"))'"  // unknown op '<U+FEFF>event'
/// ```
public struct VisibleText: CustomStringConvertible, Sendable {
    /// How many characters (Unicode scalars) of a text a message shows by default.
    public static let defaultLimit = 80

    /// The text as shown.
    public let description: String

    /// The visible form of `text`, cut after `limit` Unicode scalars.
    public init(_ text: some StringProtocol, limit: Int = VisibleText.defaultLimit) {
        var shown = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                shown += "…"
                break
            }
            if Self.shows(scalar) { shown.unicodeScalars.append(scalar) } else { shown += "<\(Self.codePoint(scalar))>" }
            count += 1
        }
        description = shown
    }

    /// One character as a message names it: `'x'`, or `U+FEFF` for one that does not show.
    public static func name(of scalar: Unicode.Scalar) -> String {
        shows(scalar) ? "'\(scalar)'" : codePoint(scalar)
    }

    /// Whether `scalar` shows as itself in a terminal.
    static func shows(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate: return false
        case .spaceSeparator: return scalar == " "
        default: return true
        }
    }

    /// `U+0007`, `U+FEFF`, `U+1F600`.
    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
