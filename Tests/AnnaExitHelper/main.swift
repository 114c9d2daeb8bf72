// A child process for the exit tests: records through a manager, then ends the process in the
// way its first argument names, without calling flush().
import Foundation

FileHandle.standardError.write(Data("usage: anna-exit-helper MODE ...\n".utf8))
exit(64)
