import ArgumentParser

/// The exit codes of `anna` (sysexits where one fits); ``table`` documents them in `--help`.
enum ExitCodes {
    /// A trace or a check failed, `--strict` saw a core error, or `--require-coverage` a gap.
    static let failure = ExitCode(1)
    /// Bad arguments (`EX_USAGE`; the argument parser exits with it), or an unknown key in a trace file.
    static let usage = ExitCode(64)
    /// A malformed line in the event stream, or a malformed trace file (`EX_DATAERR`).
    static let malformedStream = ExitCode(65)
    /// A missing input file, a module that cannot be loaded, or a folder of the wrong kind
    /// (`EX_NOINPUT`).
    static let noInput = ExitCode(66)
    /// An output cannot be created: `anna init` into a folder that is not empty or not
    /// writable, `--coverage=FILE` not writable (`EX_CANTCREAT`).
    static let cannotCreate = ExitCode(73)
    /// Output was lost: standard output, standard error or an output file could not be
    /// written to (a full disk, say), said on standard error when it still can be
    /// (`EX_IOERR`). A closed pipe ends `anna` by `SIGPIPE`, as it ends other tools.
    static let outputLost = ExitCode(74)

    /// The table shown by `anna --help` (and in the README).
    static let table = """
        Exit codes:
          0   success; core errors are reported and counted, not fatal without --strict
          1   a trace failed, check found a problem, --strict saw a core error, or
              --require-coverage a task file never loaded or a task that never ran
          64  bad arguments, or an unknown key in a trace file
          65  a malformed stream line (without --keep-going) or trace file
          66  a missing file or folder, a module that cannot be loaded, or a
              module folder given to --tasks (a task folder to --module)
          73  a file cannot be written: anna init into a folder that is not empty,
              --coverage=FILE, --console FILE
          74  output was lost: standard output, standard error or an output file
              could not be written to (a full disk, say)
        """
}
