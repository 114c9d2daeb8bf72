import Foundation

/// The page's files (HTML, CSS, JavaScript), shipped as the target's resources.
enum PageFiles {
    /// The text of `file` (`inspector.html`, `inspector.css`, `inspector.js`).
    /// - Throws: when the bundle lacks it (a broken installation: rebuild or reinstall).
    static func read(_ file: String) throws -> String {
        guard let folder = Bundle.module.resourceURL?.appendingPathComponent("Page") else {
            throw PageFileError(file: file, reason: "the AnnaInspector resource bundle is missing")
        }
        do {
            return try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        } catch {
            throw PageFileError(file: file, reason: "\(error.localizedDescription); rebuild or reinstall anna")
        }
    }
}

/// A page file that cannot be read.
struct PageFileError: Error, CustomStringConvertible {
    var file: String
    var reason: String
    var description: String { "cannot read the inspector page's \(file): \(reason)" }
}
