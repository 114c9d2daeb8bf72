import Foundation

/// Bytes for a file descriptor (standard output, a file), gathered and written in large
/// writes: one `write` per ``flush()`` (or per ``capacity`` bytes), not one per line.
///
/// Whoever fills it decides when the bytes must leave (``flush()``): a replay flushes after
/// each batch of operations and before each message on standard error, so a live stream is
/// answered as it comes and the two outputs keep their order.
final class OutputBuffer {
    /// Bytes gathered before they are written whether or not a flush was asked for.
    static let capacity = 1 << 18

    private let descriptor: Int32
    /// Where the bytes go instead of `descriptor` (standard output captured in a test).
    private let capture: StandardStreams.Capture?
    private let name: String
    /// Where a write error is said, and noted.
    private let errors = StandardStreams.current.error
    private let lostOutput = StandardStreams.current.lostOutput
    private var bytes: [UInt8] = []
    /// The first write error; nothing is written after it.
    private(set) var failure: String?

    /// A buffer for `descriptor`, named `name` in messages (`standard output`).
    convenience init(descriptor: Int32, name: String) {
        self.init(descriptor: descriptor, capture: nil, name: name)
    }

    private init(descriptor: Int32, capture: StandardStreams.Capture?, name: String) {
        self.descriptor = descriptor
        self.capture = capture
        self.name = name
        bytes.reserveCapacity(Self.capacity + 4_096)
    }

    /// Standard output.
    static func standardOutput() -> OutputBuffer {
        let capture: StandardStreams.Capture? =
            if case let .memory(capture) = StandardStreams.current.output { capture } else { nil }
        return OutputBuffer(descriptor: STDOUT_FILENO, capture: capture, name: "standard output")
    }

    /// Appends `data`.
    func append(_ data: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: data)
        if bytes.count >= Self.capacity { flush() }
    }

    /// Appends the UTF-8 bytes of `text`.
    func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends one byte.
    func append(byte: UInt8) {
        bytes.append(byte)
    }

    /// Writes everything gathered. A write error is reported once on standard error (and
    /// kept in ``failure`` and the command's ``StandardStreams/lostOutput``, which decides its
    /// exit status); what is gathered after it is dropped.
    func flush() {
        defer { bytes.removeAll(keepingCapacity: true) }
        guard failure == nil, !bytes.isEmpty else { return }
        if let capture { return capture.append(bytes) }
        guard let reason = bytes.withUnsafeBytes({ DescriptorWrite.all($0, to: descriptor) }) else { return }
        failure = reason
        _ = lostOutput.note(name, reason)
        errors.writeLine("anna: cannot write the results to \(name): \(reason)")
    }
}
