import CoreJS

/// Operations read from an event stream, encoded for the engine as each line is read: the
/// replay path of the `anna` command, with no `JSONValue` tree per line.
///
/// Usual lines are decoded straight from their bytes into the bridge's wire format; any
/// other line goes through ``EventStream/parse(line:)``, so what a line means, and the
/// message a malformed one gets, are the same either way.
///
/// ```swift
/// var batch = EventStreamBatch()
/// let added = try batch.add(line: bytes)      // .operation, .snapshot, …
/// if batch.count >= AnalyticsEngine.maximumCallSize { engine.apply(&batch).forEachText(write, error: report) }
/// ```
package struct EventStreamBatch {
    /// What a line added.
    package enum Entry: Equatable, Sendable {
        /// An operation, now the batch's last.
        case operation
        /// A `snapshot` line (nothing was added).
        case snapshot
        /// A `version` line (nothing was added).
        case version(Int)
        /// A blank line or a `//` comment.
        case nothing
    }

    var encoder = OperationEncoder()
    /// The interned strings after the operations encoded so far.
    var table = StringTableMirror()
    private var decoder = EventStreamLineDecoder()

    /// An empty batch.
    package init() {}

    /// How many operations the batch holds.
    package var count: Int { encoder.batch.count }

    /// Decodes one line (its UTF-8 bytes, without the line break) and adds its operation.
    /// - Throws: ``EventStream/FormatError`` for a malformed line (nothing is added).
    package mutating func add(line: UnsafeRawBufferPointer) throws -> Entry {
        if decoder.encode(line, into: &encoder) { return .operation }
        guard let record = try EventStream.parse(line: String(decoding: line, as: UTF8.self)) else { return .nothing }
        switch record.command {
        case let .operation(operation):
            encoder.encode(operation, time: record.time)
            return .operation
        case .snapshot:
            return .snapshot
        case let .version(version):
            return .version(version)
        }
    }

    /// Operation `index` of the batch, read back (for messages).
    func operation(at index: Int) -> TimedOperation {
        OperationDecoder(batch: encoder.batch, table: table).operation(at: index)
    }
}
