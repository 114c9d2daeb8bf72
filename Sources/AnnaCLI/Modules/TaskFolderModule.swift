import CoreJS
import Foundation

/// Serves a task folder as an analytics module on the bundled core: a virtual entry file
/// inside the folder doing `module.exports = require('anna').configured({ task: folder })`.
struct TaskFolderModule: FileAccess {
    static let entryName = ".anna-tasks-entry.js"
    let taskFolder: String
    private let disk = LocalFileAccess()

    init(taskFolder: String) {
        self.taskFolder = LocalFileAccess().canonicalPath(taskFolder)
    }

    static func entryURL(in folder: URL) -> URL {
        folder.appendingPathComponent(entryName)
    }

    private func isEntry(_ path: String) -> Bool {
        path.hasSuffix("/" + Self.entryName) && disk.canonicalPath(ModulePath.directory(of: path)) == taskFolder
    }

    func readFile(atPath path: String) throws -> String {
        guard isEntry(path) else { return try disk.readFile(atPath: path) }
        return "module.exports = require('anna').configured({ task: \(JSONValue.string(taskFolder).jsonText) });\n"
    }

    func fileExists(atPath path: String) -> Bool { isEntry(path) || disk.fileExists(atPath: path) }
    func isDirectory(atPath path: String) -> Bool { !isEntry(path) && disk.isDirectory(atPath: path) }
    func canonicalPath(_ path: String) -> String {
        isEntry(path) ? taskFolder + "/" + Self.entryName : disk.canonicalPath(path)
    }
}
