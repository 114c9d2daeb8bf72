/// Checks that bytes are well-formed UTF-8 (no overlong forms, surrogates or code points past
/// U+10FFFF): exactly the bytes `String(decoding:as:)` keeps as they are.
enum UTF8Validation {
    /// Whether `bytes` are well-formed UTF-8.
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, low) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, high) = (3, 0x9F)
            case 0xF0: (length, low) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, high) = (4, 0x8F)
            default: return false
            }
            guard index + length <= bytes.count, (low...high).contains(bytes[index + 1]) else { return false }
            for offset in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[index + offset]) { return false }
            index += length
        }
        return true
    }
}
