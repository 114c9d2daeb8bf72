/// JavaScript's UTF-16 text as UTF-8, the way Swift's `String(decoding:as: UTF16.self)`
/// writes it: a lone surrogate becomes U+FFFD. Well-formed text gives the same bytes as
/// JavaScriptCore's own conversion (`JSStringGetUTF8CString`), which stops at a lone surrogate.
///
/// Ours because the engine's conversion goes byte by byte (about 3.5 ns a byte here) and the
/// standard library's generic decoding is slower still. A text all in ASCII (JSON usually is)
/// takes one pass with no branch per unit, which the compiler vectorizes.
enum UTF16Transcoding {
    /// `units` as UTF-8 bytes.
    static func utf8(_ units: UnsafeBufferPointer<UInt16>) -> [UInt8] {
        narrowedASCII(units)
            ?? [UInt8](unsafeUninitializedCapacity: units.count * 3) { bytes, initialized in
                initialized = encode(units, into: bytes)
            }
    }

    /// `units` as bytes when every one is ASCII, else `nil`.
    static func narrowedASCII(_ units: UnsafeBufferPointer<UInt16>) -> [UInt8]? {
        var combined: UInt16 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: units.count) { buffer, initialized in
            for index in 0..<units.count {
                let unit = units[index]
                combined |= unit
                buffer[index] = UInt8(truncatingIfNeeded: unit)
            }
            initialized = units.count
        }
        return combined < 0x80 ? bytes : nil
    }

    /// Writes `units` as UTF-8 at the start of `bytes` (room for three bytes per unit) and
    /// returns how many it wrote: one to three per unit, four per surrogate pair.
    static func encode(_ units: UnsafeBufferPointer<UInt16>, into bytes: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let count = units.count
        var written = 0
        var index = 0
        while index < count {
            let unit = units[index]
            index += 1
            switch unit {
            case 0..<0x80:
                bytes[written] = UInt8(truncatingIfNeeded: unit)
                written += 1
            case 0x80..<0x800:
                bytes[written] = UInt8(truncatingIfNeeded: 0xC0 | unit >> 6)
                bytes[written + 1] = UInt8(truncatingIfNeeded: 0x80 | unit & 0x3F)
                written += 2
            case 0xD800..<0xDC00 where index < count && units[index] & 0xFC00 == 0xDC00:
                let scalar = 0x10000 + (UInt32(unit & 0x3FF) << 10 | UInt32(units[index] & 0x3FF))
                index += 1
                bytes[written] = UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18)
                bytes[written + 1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F)
                bytes[written + 2] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
                bytes[written + 3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
                written += 4
            default:
                // A lone surrogate becomes U+FFFD; any other unit is three bytes.
                let scalar = unit & 0xF800 == 0xD800 ? 0xFFFD : unit
                bytes[written] = UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12)
                bytes[written + 1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
                bytes[written + 2] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
                written += 3
            }
        }
        return written
    }
}
