import Foundation
import GRDB

/// Which entries of a group are done with (delivered, set aside, or dropped by a cap): the
/// `done` column, a bit per entry followed by how many are done, their bytes, and a hash of
/// all that. A group row is deleted once every entry is done. Damaged state reads as nothing
/// done: its results are sent again, which a collector that drops duplicates by message ID
/// absorbs; nothing is skipped unsent.
struct GroupDoneState: Sendable {
    private(set) var bits: [UInt8]
    /// How many entries are done, and their bytes (also kept in the `doneCount` and
    /// `doneBytes` columns, for totals in SQL).
    private(set) var count = 0
    private(set) var bytes = 0

    /// Nothing done of a group of `entries`.
    init(entries: Int) {
        bits = Array(repeating: 0, count: (max(entries, 0) + 7) / 8)
    }

    /// The state stored in `column` for a group of `entries`; nothing done when the column is
    /// empty or damaged.
    init(stored column: DatabaseValue, entries: Int) {
        self.init(entries: entries)
        guard let data = Data.fromDatabaseValue(column), data.count == bits.count + 24 else { return }
        let bytes = [UInt8](data)
        let hash = bytes[(bits.count + 16)...].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        guard bytes[..<(bits.count + 16)].withUnsafeBytes({ FastHash.hash($0) }) == hash else { return }
        func integer(at offset: Int) -> Int {
            Int(truncatingIfNeeded: bytes[offset..<(offset + 8)].withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) })
        }
        let (count, doneBytes) = (integer(at: bits.count), integer(at: bits.count + 8))
        let stored = Array(bytes[..<self.bits.count])
        guard count >= 0, count <= entries, doneBytes >= 0,
            stored.reduce(0, { $0 + $1.nonzeroBitCount }) == count
        else { return }
        self.bits = stored
        self.count = count
        self.bytes = doneBytes
    }

    func contains(_ index: Int) -> Bool {
        index >= 0 && index / 8 < bits.count && bits[index / 8] & (1 << (index % 8)) != 0
    }

    /// Marks entry `index` (of `bytes` bytes) done; false when it was already, or is out of range.
    @discardableResult
    mutating func insert(_ index: Int, bytes entryBytes: Int) -> Bool {
        guard index >= 0, index / 8 < bits.count, !contains(index) else { return false }
        bits[index / 8] |= 1 << (index % 8)
        count += 1
        bytes += entryBytes
        return true
    }

    /// The column's bytes.
    var encoded: Data {
        var data = bits
        withUnsafeBytes(of: Int64(count).littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(bytes).littleEndian) { data.append(contentsOf: $0) }
        let hash = data.withUnsafeBytes { FastHash.hash($0) }
        withUnsafeBytes(of: hash.littleEndian) { data.append(contentsOf: $0) }
        return Data(data)
    }
}
