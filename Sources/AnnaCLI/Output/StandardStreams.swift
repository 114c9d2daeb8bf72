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
    /// Output that could not be written, to these streams or to the files a command writes
    /// (``OutputBuffer``): a command that lost output ends with ``ExitCodes/outputLost``.
    package let lostOutput: LostOutput

    /// One of the two streams.
    package enum Stream: OutputSink {
        /// The process's standard output.
        case standardOutput
        /// The process's standard error.
        case standardError
        /// A buffer in memory.
        case memory(Capture)

        /// Writes `text` as is. A write error (a full disk, say) is noted in
        /// ``StandardStreams/process``'s ``lostOutput`` and, for standard output, said once on
        /// standard error; what follows is written as far as it can be.
        package func write(_ text: String) {
            var text = text
            text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
        }

        /// Writes `bytes` as they are, as the text version does.
        package func write(_ bytes: UnsafeRawBufferPointer) {
            switch self {
            case .standardOutput:
                guard let reason = DescriptorWrite.all(bytes, to: STDOUT_FILENO) else { return }
                if StandardStreams.process.lostOutput.note("standard output", reason) {
                    Stream.standardError.writeLine("anna: cannot write to standard output: \(reason); output is lost")
                }
            case .standardError:
                guard let reason = DescriptorWrite.all(bytes, to: STDERR_FILENO) else { return }
                _ = StandardStreams.process.lostOutput.note("standard error", reason)
            case let .memory(capture): capture.append(Array(bytes))
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

    /// The outputs a command could not write to, the first error of each.
    package final class LostOutput: Sendable {
        private let outputs = Locked<[(name: String, reason: String)]>([])

        /// An empty record.
        package init() {}

        /// Notes that writing to `name` failed; `true` the first time for `name`.
        package func note(_ name: String, _ reason: String) -> Bool {
            outputs.withLock { outputs in
                guard !outputs.contains(where: { $0.name == name }) else { return false }
                outputs.append((name, reason))
                return true
            }
        }

        /// Each output that failed and why, in the order they failed.
        package var all: [(name: String, reason: String)] { outputs.withLock { $0 } }
    }

    /// The process's standard output and error.
    package static let process = StandardStreams(output: .standardOutput, error: .standardError, lostOutput: LostOutput())

    /// Two buffers in memory (``capturedOutput``, ``capturedError``).
    package static func capturing() -> StandardStreams {
        StandardStreams(output: .memory(Capture()), error: .memory(Capture()), lostOutput: LostOutput())
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
