import Anna
import CoreJS
import Foundation

/// Prints each result as one line of compact JSON, each error on standard error; counts errors.
final class ResultPrinter: ManagerDelegate {
    private let errors = Locked(0)

    var errorCount: Int { errors.withLock { $0 } }

    func manager(_ manager: Manager, didSend result: AnalyticsResult) {
        print(result.value.jsonText)
    }

    func manager(_ manager: Manager, didCatch error: any Error) {
        errors.withLock { $0 += 1 }
        FileHandle.standardError.write(Data("anna-gtk-fixture: \(error)\n".utf8))
    }
}
