import Anna
import CoreJS
import Foundation

/// The analytics module a measurement runs, with the measurement's generated tasks.
///
/// - The bundled core: a temporary folder holding `index.js`
///   (`module.exports = require('anna').configured({ task: __dirname + '/task' })`) and
///   `task/index.js`; removed when the workspace is released.
/// - Another module (`--module DIR`): loaded in place, so its own `require`s of its core
///   (`require('../protocol-core')`, `node_modules`, …) resolve as usual; only its task
///   folder (`DIR/task`) is replaced, in memory, by the generated `task/index.js`. Nothing
///   is written into `DIR`. Files may be read from `DIR`'s parent folder (where a core next
///   to the module lives) and from the extra roots given.
final class ModuleWorkspace {
    /// What to pass to `Manager(moduleURL:dependency:)`.
    let moduleURL: URL
    /// The dependency: console output to standard error (standard output carries the JSON).
    let dependency: Manager.Dependency
    private let temporaryFolder: URL?

    /// The bundled core with `tasks` as `task/index.js`, in a new temporary folder.
    /// - Throws: ``BenchError/workspaceFailed(path:reason:)``.
    init(bundledWithTasks tasks: String) throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("anna-bench-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
        do {
            let taskFolder = folder.appendingPathComponent("task", isDirectory: true)
            try FileManager.default.createDirectory(at: taskFolder, withIntermediateDirectories: true)
            try "module.exports = require('anna').configured({ task: __dirname + '/task' });\n"
                .write(to: folder.appendingPathComponent("index.js"), atomically: true, encoding: .utf8)
            try tasks.write(to: taskFolder.appendingPathComponent("index.js"), atomically: true, encoding: .utf8)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw BenchError.workspaceFailed(path: folder.path, reason: "\(error)")
        }
        temporaryFolder = folder
        moduleURL = folder
        dependency = Manager.Dependency(standardOutput: FileHandleOutputSink.standardError)
    }

    /// The module in `folder`, its task folder `taskFolderName` replaced by `tasks`.
    /// - Throws: ``BenchError/workspaceFailed(path:reason:)`` when `folder/index.js` is missing.
    init(module folder: URL, taskFolderName: String, tasks: String, allowedRoots: [URL]) throws {
        let files = LocalFileAccess()
        let modulePath = files.canonicalPath(folder.standardizedFileURL.path)
        guard files.isFile(atPath: modulePath + "/index.js") else {
            throw BenchError.workspaceFailed(path: modulePath, reason: "no index.js: not an analytics module folder")
        }
        temporaryFolder = nil
        moduleURL = URL(fileURLWithPath: modulePath, isDirectory: true)
        dependency = Manager.Dependency(
            fileAccess: ReplacedTaskFolder(taskFolder: modulePath + "/" + taskFolderName, index: tasks),
            standardOutput: FileHandleOutputSink.standardError,
            additionalAllowedRoots: [moduleURL.deletingLastPathComponent()] + allowedRoots)
    }

    deinit {
        if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
    }
}

/// Files from disk, except one task folder, which holds only the generated `index.js`.
struct ReplacedTaskFolder: FileAccess {
    /// The canonical path of the replaced folder.
    let taskFolder: String
    /// The contents of `taskFolder/index.js`.
    let index: String
    private let disk = LocalFileAccess()

    private var indexPath: String { taskFolder + "/index.js" }

    /// Whether `path` is inside the replaced folder (where the disk is hidden).
    private func isReplaced(_ path: String) -> Bool {
        path == taskFolder || path.hasPrefix(taskFolder + "/")
    }

    func readFile(atPath path: String) throws -> String {
        if path == indexPath { return index }
        if isReplaced(path) { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return try disk.readFile(atPath: path)
    }

    func fileExists(atPath path: String) -> Bool {
        path == taskFolder || path == indexPath || (!isReplaced(path) && disk.fileExists(atPath: path))
    }

    func isDirectory(atPath path: String) -> Bool {
        path == taskFolder || (!isReplaced(path) && disk.isDirectory(atPath: path))
    }

    func canonicalPath(_ path: String) -> String {
        isReplaced(path) ? path : disk.canonicalPath(path)
    }
}
