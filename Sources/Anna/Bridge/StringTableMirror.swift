import Synchronization

/// The interned strings as JavaScript holds them after the batches seen so far: what an
/// engine must be sent to decode the next batch when it missed earlier ones (it was loaded
/// later, or a call failed before its strings arrived).
struct StringTableMirror {
    /// Tells the tables of different encoders apart (the bridge keeps one per identity).
    let identity = Self.identities.add(1, ordering: .relaxed).newValue
    private static let identities = Atomic<Int>(0)
    /// The strings by number.
    private(set) var strings: [String] = []
    /// Counts the times the table started over.
    private(set) var generation = 0

    /// Takes in the strings `batch` adds.
    mutating func add(_ batch: EncodedOperations) {
        if batch.resetsTable {
            strings.removeAll(keepingCapacity: true)
            generation += 1
        }
        strings.append(contentsOf: batch.newStrings)
    }

    /// String `index` of `batch`: interned when `index >= 0`, else one of its literals.
    func string(_ index: Int, in batch: EncodedOperations) -> String? {
        if index >= 0 { return index < strings.count ? strings[index] : nil }
        let literal = -index - 1
        return literal < batch.literals.count ? batch.literals[literal] : nil
    }
}
