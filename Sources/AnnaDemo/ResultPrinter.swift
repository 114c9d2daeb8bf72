import Anna
import CoreJS
import Foundation

/// Prints each result as one line of compact JSON on standard output, and each error on
/// standard error; counts the errors.
final class ResultPrinter: ManagerDelegate {
    private let errors = Locked(0)

    /// How many errors were caught.
    var errorCount: Int { errors.withLock { $0 } }

    func manager(_ manager: Manager, didSend result: AnalyticsResult) {
        print(result.value.jsonText)
    }

    func manager(_ manager: Manager, didCatch error: any Error) {
        errors.withLock { $0 += 1 }
        standardError("anna-demo: \(error)")
    }
}

/// Writes a line to standard error.
func standardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
