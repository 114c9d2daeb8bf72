import Anna
import CoreJS
import Foundation

/// Keeps each result as a line of compact JSON, in order, and says each error on standard
/// error; counts the errors.
final class ResultCollector: ManagerDelegate {
    private let state = Locked((lines: [String](), errors: 0))

    /// The results so far, one compact JSON text each.
    var lines: [String] { state.withLock { $0.lines } }
    /// How many errors were caught.
    var errorCount: Int { state.withLock { $0.errors } }

    func manager(_ manager: Manager, didSend result: AnalyticsResult) {
        let line = result.value.jsonText
        state.withLock { $0.lines.append(line) }
    }

    func manager(_ manager: Manager, didCatch error: any Error) {
        state.withLock { $0.errors += 1 }
        FileHandle.standardError.write(Data("anna-gtk-demo: \(error)\n".utf8))
    }
}
