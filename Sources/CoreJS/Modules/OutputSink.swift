import Foundation

/// Where text goes: standard output, a file, a buffer in a test.
public protocol OutputSink: Sendable {
    /// Writes `text` as is (the caller adds line breaks).
    func write(_ text: String)
}

/// Writes to a `FileHandle`, e.g. standard output or standard error.
public struct FileHandleOutputSink: OutputSink {
    private let handle: FileHandle

    /// Writes to `handle`.
    public init(_ handle: FileHandle) { self.handle = handle }

    /// Standard output.
    public static var standardOutput: FileHandleOutputSink { FileHandleOutputSink(.standardOutput) }
    /// Standard error.
    public static var standardError: FileHandleOutputSink { FileHandleOutputSink(.standardError) }

    /// Writes the UTF-8 bytes of `text`. A write that fails (a full disk) is dropped: this is
    /// where it would be said, and a full disk must not stop the host (Foundation's
    /// non-throwing `write` traps on it).
    public func write(_ text: String) {
        do {
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            return  // nowhere left to say it
        }
    }
}

/// Collects everything written, for tests and for hosts that forward output elsewhere.
public final class MemoryOutputSink: OutputSink {
    private let buffer = Locked("")

    /// An empty sink.
    public init() {}

    /// Appends `text`.
    public func write(_ text: String) {
        buffer.withLock { $0 += text }
    }

    /// Everything written so far.
    public var text: String { buffer.withLock { $0 } }

    /// The text written so far, split into lines (without the final empty one).
    public var lines: [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
