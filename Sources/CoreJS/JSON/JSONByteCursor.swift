/// A position in the UTF-8 bytes of a JSON text, with the scans every JSON reader of the
/// package shares: whitespace, single bytes, the literals, numbers
/// (``scanNumber()``), string bodies under an escape policy (``scanString(_:)``,
/// JSONByteCursor+Strings.swift) and whole values skipped (``skipValue(maxDepth:)``,
/// JSONByteCursor+Skip.swift).
///
/// `JSONParser`, the replay fast path's line decoder and result text scanner, and the
/// snapshot's scanner are built on it; each keeps its own grammar and messages. The scans
/// allocate nothing, read plain string text and digits eight bytes at a time, and are
/// inlined into their callers. A scan that refuses its input says so (`nil`, `false` or a
/// thrown problem) and leaves ``position`` at the byte that made it stop, where the readers
/// that report errors name it.
@_spi(JSONScanning) public struct JSONByteCursor {
    /// The text.
    public let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    public var position: Int

    /// A cursor at `position` of `bytes`.
    @inlinable
    public init(_ bytes: UnsafeBufferPointer<UInt8>, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    /// The byte at ``position``; `nil` past the end.
    @inlinable
    public var current: UInt8? {
        @inline(__always) get { position < bytes.count ? bytes[position] : nil }
    }

    /// Whether every byte was read.
    @inlinable
    public var atEnd: Bool { position >= bytes.count }

    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    @inlinable @inline(__always)
    public mutating func skipWhitespace() {
        while position < bytes.count {
            let byte = bytes[position]
            guard byte <= UInt8(ascii: " "),
                byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
            else { return }
            position += 1
        }
    }

    /// Steps over `byte` when it is next.
    @inlinable @inline(__always)
    public mutating func consume(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Steps over `literal` (`true`, `false`, `null`) when it is next; otherwise stops at the
    /// first byte that differs from it (or at the end).
    @inlinable @inline(__always)
    public mutating func consume(_ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        if bytes.count - position >= length,
            JSONByteWords.equal(UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + position), count: length, literal)
        {
            position += length
            return true
        }
        var index = 0
        while index < length, position < bytes.count, bytes[position] == literal.utf8Start[index] {
            index += 1
            position += 1
        }
        return false
    }

    /// Skips one or more digits; `false` (not moving) when there is none.
    @inlinable @inline(__always)
    public mutating func skipDigits() -> Bool {
        let start = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        return position > start
    }

    /// Skips plain string text (no quote, backslash, control character or byte past ASCII),
    /// eight bytes at a time.
    @inlinable @inline(__always)
    public mutating func skipPlainText() {
        while bytes.count - position >= 8 {
            let special = JSONByteWords.specialBytes(JSONByteWords.word(bytes, at: position))
            if special != 0 {
                position += special.trailingZeroBitCount >> 3
                return
            }
            position += 8
        }
    }
}
