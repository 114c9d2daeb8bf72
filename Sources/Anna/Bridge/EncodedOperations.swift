/// A batch of encoded operations (see ``OperationEncoder``).
struct EncodedOperations: Sendable {
    /// The operations' numbers, one after the other.
    var numbers: [Double] = []
    /// Where each operation's numbers start.
    var starts: [Int] = []
    /// How many literals the operations before each one added.
    var literalStarts: [Int] = []
    /// The strings the batch added to the interned table, in order.
    var newStrings: [String] = []
    /// The batch's literals (string index `-1 - i` is `literals[i]`).
    var literals: [String] = []
    /// Whether the interned table starts over with this batch.
    var resetsTable = false

    /// How many operations the batch holds.
    var count: Int { starts.count }

    /// An empty batch.
    init() {}

    /// An empty batch with room for `operations` operations of up to
    /// ``numbersReservedPerOperation`` numbers, so that it does not grow (copying and
    /// faulting in every size on the way) while they are encoded.
    init(reservingFor operations: Int) {
        numbers.reserveCapacity(operations * Self.numbersReservedPerOperation)
        starts.reserveCapacity(operations)
        literalStarts.reserveCapacity(operations)
    }

    /// Numbers reserved per operation: an event with two properties takes 12.
    static let numbersReservedPerOperation = 12

    /// The numbers of operations `range`.
    func numbers(of range: Range<Int>) -> ArraySlice<Double> {
        let end = range.upperBound < starts.count ? starts[range.upperBound] : numbers.count
        return numbers[starts[range.lowerBound]..<end]
    }

    /// The times of operations `range`, in milliseconds since the epoch (NaN: none given).
    func times(of range: Range<Int>) -> [Double] {
        range.map { numbers[starts[$0] + 1] }
    }

    /// The literals of operations `range` (the slice keeps the batch's indices).
    func literals(of range: Range<Int>) -> ArraySlice<String> {
        let end = range.upperBound < literalStarts.count ? literalStarts[range.upperBound] : literals.count
        return literals[literalStarts[range.lowerBound]..<end]
    }

    /// Empties the batch, keeping its buffers.
    mutating func removeAll() {
        numbers.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        literalStarts.removeAll(keepingCapacity: true)
        newStrings.removeAll(keepingCapacity: true)
        literals.removeAll(keepingCapacity: true)
        resetsTable = false
    }
}
