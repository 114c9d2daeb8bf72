@_spi(JSONScanning) import CoreJS
import Foundation

/// Numbers strings by their exact UTF-8 bytes: the first string gets 0, the next new one 1,
/// and so on.
///
/// A hot path of the bridge interns every event name, key and short value. A `[String: Int]`
/// hashes with SipHash and compares by canonical equivalence ("é" equals "e\u{301}"), where
/// JavaScript compares code units; this table hashes the bytes with a cheap multiplicative
/// hash and compares them with `memcmp`, so equal numbers mean equal strings in JavaScript.
struct StringInterner {
    /// Slot `i` holds an entry number plus one, or 0 when empty. Power-of-two sized, at most
    /// half full.
    private var slots: [Int32] = Array(repeating: 0, count: 256)
    private var hashes: [UInt64] = []
    /// Entry `i`'s bytes are `bytes[starts[i]..<starts[i + 1]]`.
    private var bytes: [UInt8] = []
    private var starts: [Int] = [0]

    /// How many strings have a number.
    var count: Int { hashes.count }

    /// Forgets every string.
    mutating func removeAll() {
        slots = Array(repeating: 0, count: 256)
        hashes.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        starts = [0]
    }

    /// The number of `text`, and whether it was new (numbered by this call).
    mutating func number(of text: String) -> (number: Int, isNew: Bool) {
        var text = text
        return text.withUTF8 { number(ofBytes: $0) }
    }

    /// The number of the string of UTF-8 bytes `text`, and whether it was new.
    mutating func number(ofBytes text: UnsafeBufferPointer<UInt8>) -> (number: Int, isNew: Bool) {
        let hash = Self.hash(text)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let entry = Int(slots[slot] - 1)
            if hashes[entry] == hash, matches(entry, text) { return (entry, false) }
            slot = (slot + 1) & mask
        }
        let entry = hashes.count
        hashes.append(hash)
        bytes.append(contentsOf: text)
        starts.append(bytes.count)
        slots[slot] = Int32(entry + 1)
        if hashes.count * 2 > slots.count { grow() }
        return (entry, true)
    }

    private func matches(_ entry: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = starts[entry]
        guard starts[entry + 1] - start == text.count else { return false }
        guard let base = text.baseAddress else { return true }
        return bytes.withUnsafeBufferPointer { stored in
            guard let storedBase = stored.baseAddress else { return false }  // an entry has bytes, so never empty
            return JSONByteWords.equal(storedBase + start, base, count: text.count)
        }
    }

    private mutating func grow() {
        var larger = [Int32](repeating: 0, count: slots.count * 2)
        let mask = larger.count - 1
        for (entry, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while larger[slot] != 0 { slot = (slot + 1) & mask }
            larger[slot] = Int32(entry + 1)
        }
        slots = larger
    }

    /// A 64-bit multiplicative hash of the bytes, eight at a time.
    private static func hash(_ text: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = UInt64(truncatingIfNeeded: text.count) &* multiplier
        guard let base = text.baseAddress else { return hash }
        let raw = UnsafeRawPointer(base)
        var offset = 0
        while offset + 8 <= text.count {
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        if offset < text.count {
            var tail: UInt64 = 0
            for index in offset..<text.count { tail = tail << 8 | UInt64(base[index]) }
            hash = (hash ^ tail) &* multiplier
            hash ^= hash >> 29
        }
        return hash
    }
}
