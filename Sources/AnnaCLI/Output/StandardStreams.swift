import CoreJS
import Foundation

/// Where `anna` writes: the process's standard output and error, or two buffers when a
/// command runs inside a test (``AnnaCommand/execute(_:)`` under ``current``).
///
/// Everything a command writes goes through ``current`` (``printError(_:)``,
/// ``printOutput(_:)``, ``OutputBuffer/standardOutput()``, the progress line). A task-local
/// value follows the command's own thread and tasks; what writes from threads of its own (the
/// workers of `anna replay`, an outbox's callbacks) takes ``current`` when it is made.
///
/// ```swift
/// let streams = StandardStreams.capturing()
/// let status = StandardStreams.$current.withValue(streams) { AnnaCommand.execute(["run", …]) }
/// print(streams.capturedError)
/// ```
package struct StandardStreams: Sendable {
    /// Standard output.
    package let output: Stream
    /// Standard error.
    package let error: Stream

    /// One of the two streams.
    package enum Stream: OutputSink {
        /// The process's standard output.
        case standardOutput
        /// The process's standard error.
        case standardError
        /// A buffer in memory.
        case memory(Capture)

        /// Writes `text` as is.
        package func write(_ text: String) {
            switch self {
            case .standardOutput: FileHandle.standardOutput.write(Data(text.utf8))
            case .standardError: FileHandle.standardError.write(Data(text.utf8))
            case let .memory(capture): capture.append(Array(text.utf8))
            }
        }

        /// Writes `line` and a line break.
        package func writeLine(_ line: String) {
            write(line + "\n")
        }

        /// Whether a terminal shows what is written (a progress line is drawn only there).
        var isTerminal: Bool {
            switch self {
            case .standardOutput: isatty(STDOUT_FILENO) == 1
            case .standardError: isatty(STDERR_FILENO) == 1
            case .memory: false
            }
        }
    }

    /// Bytes written to a ``Stream/memory(_:)`` stream.
    package final class Capture: Sendable {
        private let bytes = Locked([UInt8]())

        /// An empty buffer.
        package init() {}

        /// Appends `data`.
        package func append(_ data: [UInt8]) {
            bytes.withLock { $0 += data }
        }

        /// Everything written, as text.
        package var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
    }

    /// The process's standard output and error.
    package static let process = StandardStreams(output: .standardOutput, error: .standardError)

    /// Two buffers in memory (``capturedOutput``, ``capturedError``).
    package static func capturing() -> StandardStreams {
        StandardStreams(output: .memory(Capture()), error: .memory(Capture()))
    }

    /// Where commands write now: ``process`` unless a test chose otherwise.
    @TaskLocal package static var current = StandardStreams.process

    /// What was written to standard output, when it is captured.
    package var capturedOutput: String {
        if case let .memory(capture) = output { capture.text } else { "" }
    }

    /// What was written to standard error, when it is captured.
    package var capturedError: String {
        if case let .memory(capture) = error { capture.text } else { "" }
    }
}

/// Writes one line to standard error.
func printError(_ line: String) {
    StandardStreams.current.error.writeLine(line)
}

/// Writes one line to standard output, unbuffered so each result leaves at once.
func printOutput(_ line: String) {
    StandardStreams.current.output.writeLine(line)
}
