import Foundation

/// Writes one line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Writes one line to standard output, unbuffered so each result leaves at once.
func printOutput(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
