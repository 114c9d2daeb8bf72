import Foundation

/// The bytes of a ``MessageGroup``'s entries, little-endian. Each entry:
///
/// `length: UInt32, hash: UInt64` (of the `length` bytes that follow), then `index: Int32`
/// (its place in the group), `seq: Int64, time: Float64, appendedAt: Float64, bytes: Int64`, then the texts `messageId, task, path,
/// event, result`, each as `length: Int32` (-1 for none) and its UTF-8 bytes. No message ID
/// stands for ``MessageID/make(session:seq:)``'s (the group's session).
enum BlobWriter {
    static func append<Value: FixedWidthInteger>(_ value: Value, to blob: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { blob.append(contentsOf: $0) }
    }

    /// Appends one entry with its length and hash (`messageId` nil: the session's own),
    /// every field stored in place.
    static func appendEntry(
        index: Int, seq: Int64, time: Double, appendedAt: Double, bytes: Int, messageId: String?, task: String?,
        path: String?, event: String?, result: String, to blob: GroupBytes
    ) {
        let payload =
            56 + (messageId?.utf8.count ?? 0) + (task?.utf8.count ?? 0) + (path?.utf8.count ?? 0) + (event?.utf8.count ?? 0)
            + result.utf8.count
        let entry = blob.append(count: 12 + payload)
        var offset = 12
        func store<Value: FixedWidthInteger>(_ value: Value) {
            entry.storeBytes(of: value.littleEndian, toByteOffset: offset, as: Value.self)
            offset += MemoryLayout<Value>.size
        }
        func storeText(_ text: String?) {
            guard let text else {
                store(Int32(-1))
                return
            }
            let count = text.utf8.count
            store(Int32(truncatingIfNeeded: count))
            let target = UnsafeMutableRawBufferPointer(rebasing: entry[offset..<(offset + count)])
            if text.utf8.withContiguousStorageIfAvailable({ target.copyMemory(from: UnsafeRawBufferPointer($0)) }) == nil {
                _ = target.initializeMemory(as: UInt8.self, from: text.utf8)
            }
            offset += count
        }
        store(Int32(truncatingIfNeeded: index))
        store(seq)
        store(time.bitPattern)
        store(appendedAt.bitPattern)
        store(Int64(bytes))
        storeText(messageId)
        storeText(task)
        storeText(path)
        storeText(event)
        storeText(result)
        let hash = FastHash.hash(UnsafeRawBufferPointer(rebasing: entry[12...]))
        entry.storeBytes(of: UInt32(payload).littleEndian, toByteOffset: 0, as: UInt32.self)
        entry.storeBytes(of: hash.littleEndian, toByteOffset: 4, as: UInt64.self)
    }
}

/// A growing byte buffer: an open group's encoded entries. Appending hands out room in
/// place (no zero fill, no per-append bounds and uniqueness checks of an array). Unchecked
/// `Sendable`: written only while its group is open, under the writer's lock, and only read
/// once the group is closed.
final class GroupBytes: @unchecked Sendable {
    private var base: UnsafeMutableRawPointer?
    private(set) var count = 0
    private var capacity = 0

    deinit { base.map { free($0) } }

    /// Room for `extra` more bytes at the end, to be filled by the caller.
    func append(count extra: Int) -> UnsafeMutableRawBufferPointer {
        if count + extra > capacity {
            capacity = max(capacity * 2, count + extra, 4096)
            guard let grown = realloc(base, capacity) else { fatalError("out of memory for \(capacity) bytes") }
            base = grown
        }
        defer { count += extra }
        return UnsafeMutableRawBufferPointer(start: base.map { $0 + count }, count: extra)
    }

    /// The bytes so far.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}

/// Reads a ``MessageGroup``'s bytes, none of them trusted.
struct BlobReader {
    let buffer: UnsafeRawBufferPointer
    var offset = 0

    init(buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    private mutating func integer<Value: FixedWidthInteger>(_: Value.Type, limit: Int) -> Value? {
        guard limit - offset >= MemoryLayout<Value>.size else { return nil }
        defer { offset += MemoryLayout<Value>.size }
        return Value(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Value.self))
    }

    /// A text; `.some(nil)` for none, nil when the bytes do not make one.
    private mutating func text(limit: Int) -> String?? {
        guard let length = integer(Int32.self, limit: limit) else { return nil }
        if length == -1 { return .some(nil) }
        guard length >= 0, limit - offset >= Int(length) else { return nil }
        defer { offset += Int(length) }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + Int(length))])
        guard let decoded = String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) else { return nil }
        return .some(decoded)
    }

    /// The end of the entry whose header is at `start`, and whether its hash matches; nil
    /// when the header does not fit or its length runs past the end.
    private func entry(at start: Int) -> (end: Int, matches: Bool)? {
        guard buffer.count - start >= 12 else { return nil }
        let length = Int(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: start, as: UInt32.self)))
        guard buffer.count - start - 12 >= length else { return nil }
        let hash = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: start + 4, as: UInt64.self))
        let payload = UnsafeRawBufferPointer(rebasing: buffer[(start + 12)..<(start + 12 + length)])
        return (start + 12 + length, FastHash.hash(payload) == hash)
    }

    /// What the reader found next.
    enum Next {
        /// An entry, decoded (with a defect when its hash does not match or its fields do not decode).
        case entry(MessageGroup.Decoded)
        /// A whole entry `decoding` said to pass over (done with), not decoded.
        case skipped
    }

    /// The next entry, or nil at the end. An entry whose hash does not match comes back with
    /// a defect (and its message when its fields decode) if the entry after it is whole (its
    /// length was right); otherwise the reader skips to the next offset where a whole entry
    /// starts, and the entries in between are lost (the group's count tells how many). A
    /// whole entry whose index `decoding` refuses is passed over without decoding it.
    mutating func next(session: String, decoding: (Int) -> Bool = { _ in true }) -> Next? {
        guard offset < buffer.count else { return nil }
        if let found = entry(at: offset) {
            if found.matches || found.end == buffer.count || entry(at: found.end)?.matches == true {
                if found.matches, found.end - offset >= 16 {
                    let index = Int32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset + 12, as: Int32.self))
                    if !decoding(Int(index)) {
                        offset = found.end
                        return .skipped
                    }
                }
                return .entry(decode(from: offset + 12, to: found.end, session: session, matches: found.matches))
            }
        }
        var start = offset + 1
        while start < buffer.count {
            if let found = entry(at: start), found.matches {
                return .entry(decode(from: start + 12, to: found.end, session: session, matches: true))
            }
            start += 1
        }
        offset = buffer.count
        return nil
    }

    /// The entry whose payload is `start..<end`.
    private mutating func decode(from start: Int, to end: Int, session: String, matches: Bool) -> MessageGroup.Decoded {
        offset = start
        defer { offset = end }
        guard let index = integer(Int32.self, limit: end), let seq = integer(Int64.self, limit: end),
            let time = integer(UInt64.self, limit: end),
            let appendedAt = integer(UInt64.self, limit: end), let bytes = integer(Int64.self, limit: end),
            let messageId = text(limit: end), let task = text(limit: end), let path = text(limit: end),
            let event = text(limit: end), let result = text(limit: end) ?? nil, Double(bitPattern: time).isFinite
        else {
            return MessageGroup.Decoded(index: nil, message: nil, bytes: 0, appendedAt: 0, defect: "its fields do not decode")
        }
        let message = OutboxMessage(
            messageId: messageId ?? MessageID.make(session: session, seq: seq), session: session, seq: seq,
            time: Double(bitPattern: time), task: task, path: path, event: event, result: result)
        return MessageGroup.Decoded(
            index: matches ? Int(index) : nil, message: message, bytes: min(max(Int(bytes), 0), OutboxStore.maximumRowBytes),
            appendedAt: Double(bitPattern: appendedAt), defect: matches ? nil : "the checksum does not match")
    }
}

/// A fast 64-bit hash over bytes, eight at a time (a multiply and a rotate per word): it
/// notices bytes changed on disk, it is not meant to resist anyone.
enum FastHash {
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        while bytes.count - offset >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            hash = ((hash ^ word) &* 0xFF51_AFD7_ED55_8CCD).rotatedLeft(by: 29)
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = ((hash ^ tail) &* 0xC4CE_B9FE_1A85_EC53)
        return hash ^ (hash >> 33)
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(by count: UInt64) -> UInt64 { (self << count) | (self >> (64 - count)) }
}
