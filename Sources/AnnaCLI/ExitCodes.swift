import ArgumentParser

/// The exit codes of `anna` (sysexits where one fits).
enum ExitCodes {
    /// A trace or a check failed.
    static let failure = ExitCode(1)
    /// A malformed line in the event stream (`EX_DATAERR`).
    static let malformedStream = ExitCode(65)
    /// A missing input file or a module that cannot be loaded (`EX_NOINPUT`).
    static let noInput = ExitCode(66)
}
