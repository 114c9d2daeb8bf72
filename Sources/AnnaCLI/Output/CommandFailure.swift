import ArgumentParser

/// Why `anna` stops: what to say on standard error, and the exit code.
///
/// A command throws it where it finds the problem; ``AnnaCommand`` catches it once, writes
/// its lines and exits with its code. A failure with no lines ends the run after the command
/// said everything itself (a summary line, a failed trace).
///
/// ```swift
/// guard files.fileExists(atPath: path) else {
///     throw CommandFailure("anna: no such task folder: \(path)", exitCode: ExitCodes.noInput)
/// }
/// ```
struct CommandFailure: Error {
    /// The lines for standard error, each written as it is (most begin `anna: `).
    let lines: [String]
    /// The exit code, one of ``ExitCodes``.
    let exitCode: ExitCode

    /// A failure saying `line`.
    init(_ line: String, exitCode: ExitCode) {
        self.init(lines: [line], exitCode: exitCode)
    }

    /// A failure saying each of `lines`, in order (an error, then a hint).
    init(lines: [String], exitCode: ExitCode) {
        self.lines = lines
        self.exitCode = exitCode
    }

    /// A failure that says nothing more (the command already did).
    init(exitCode: ExitCode) {
        self.init(lines: [], exitCode: exitCode)
    }

    /// Says the lines now, and returns the failure without them: for a command that goes on
    /// to print its summary before it fails with this code (`anna run` with an outbox).
    func saidNow() -> CommandFailure {
        for line in lines { printError(line) }
        return CommandFailure(exitCode: exitCode)
    }
}
