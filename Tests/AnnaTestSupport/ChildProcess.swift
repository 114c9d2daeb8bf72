import Foundation

/// Runs a child process to its end and captures what it prints and how it ended.
public enum ChildProcess {
    /// How a child process ended and what it printed.
    public struct Output: Sendable {
        /// The exit status, or the signal's number when `signalled`.
        public var status: Int32
        /// Everything it wrote to standard output (with standard error too when they were merged).
        public var stdout: String
        /// Everything it wrote to standard error (empty when merged into `stdout`).
        public var stderr: String
        /// Whether a signal ended the process (a crash, or the stop after the timeout).
        public var signalled: Bool
        /// Whether the process ran past its timeout and was stopped by SIGTERM.
        public var timedOut: Bool

        /// `stdout`'s lines, without their line ends.
        public var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        /// `stderr`'s lines, without their line ends.
        public var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

        /// An output as described.
        public init(status: Int32, stdout: String, stderr: String, signalled: Bool = false, timedOut: Bool = false) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
            self.signalled = signalled
            self.timedOut = timedOut
        }
    }

    /// Runs `executable arguments…` (in `currentDirectory`, with `environment` instead of this
    /// process's when given, with `input` on standard input, else an empty one) until it ends;
    /// stops it with SIGTERM after `timeout` seconds. `mergingStandardError` sends standard error
    /// to the same pipe as standard output, so the two keep their order. Waits on a thread of its
    /// own (``onOwnThread(_:)``), not on one of the few that run the tests' tasks.
    public static func run(
        executable: URL, arguments: [String], environment: [String: String]? = nil, currentDirectory: URL? = nil,
        input: String? = nil, mergingStandardError: Bool = false, timeout: TimeInterval? = nil
    ) async throws -> Output {
        try await onOwnThread {
            try runWaiting(
                executable: executable, arguments: arguments, environment: environment, currentDirectory: currentDirectory,
                input: input, mergingStandardError: mergingStandardError, timeout: timeout)
        }
    }

    /// ``run(executable:arguments:environment:currentDirectory:input:mergingStandardError:timeout:)``
    /// on the calling thread, which it blocks until the child ends.
    public static func runWaiting(
        executable: URL, arguments: [String], environment: [String: String]? = nil, currentDirectory: URL? = nil,
        input: String? = nil, mergingStandardError: Bool = false, timeout: TimeInterval? = nil
    ) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = mergingStandardError ? stdout : stderr
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        if let timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { if process.isRunning { process.terminate() } }
        }
        if let stdin, let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        // Read both pipes fully before waiting, so a large output cannot block the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        if !mergingStandardError {
            group.enter()
            DispatchQueue.global().async {
                errorData = stderr.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
        }
        let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        let signalled = process.terminationReason == .uncaughtSignal
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self), signalled: signalled,
            timedOut: signalled && timeout != nil && process.terminationStatus == SIGTERM)
    }
}
