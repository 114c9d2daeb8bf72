import CoreJS
import Foundation

/// Which tasks ran how often, which never fired, which task files loaded and which
/// namespaces had none: what makes a mistake that produces no result visible.
///
/// ```swift
/// let coverage = try await manager.coverage()
/// print(coverage.report())
/// ```
public struct Coverage: Sendable, Equatable, Codable {
    /// One task loaded now.
    public struct Task: Sendable, Equatable, Codable {
        /// Its pattern.
        public var task: String
        /// Where its `match` call is.
        public var location: TaskLocation?
        /// How many times its function ran.
        public var matches: Int
        /// How many of those runs threw.
        public var failures: Int
    }

    /// One task file.
    public struct File: Sendable, Equatable, Codable {
        /// What became of a task file.
        public enum Status: String, Sendable, Codable {
            /// It ran; its tasks are loaded.
            case loaded
            /// A namespace asked for it, and it does not exist.
            case missing
            /// It threw or did not parse; it has no tasks.
            case failed
            /// It is in the task folder, and no node ever asked for it.
            case neverLoaded
        }

        /// The file's path.
        public var file: String
        /// What became of it.
        public var status: Status
        /// How many tasks it made.
        public var tasks: Int
        /// Why it failed, for ``Status/failed``.
        public var error: String?
    }

    /// One namespace a registered node had.
    public struct Namespace: Sendable, Equatable, Codable {
        /// The namespace (`Lib.Alpha`).
        public var namespace: String
        /// The task file it stands for.
        public var file: String
        /// Whether that file exists.
        public var hasTaskFile: Bool
    }

    /// The task folder, when the core says.
    public var taskFolder: String?
    /// Every task loaded now, in load order.
    public var tasks: [Task]
    /// Every task file the core tried, then those of the task folder it never tried.
    public var files: [File]
    /// Every namespace a registered node had.
    public var namespaces: [Namespace]

    /// The tasks whose function never ran.
    public var tasksNeverFired: [Task] { tasks.filter { $0.matches == 0 } }
    /// The namespaces whose task file does not exist (a renamed class, a typo).
    public var namespacesWithoutTaskFile: [Namespace] { namespaces.filter { !$0.hasTaskFile } }

    /// One line per task file that exists and was never loaded, each next to the namespaces
    /// that asked for a task file that does not exist, since together they are the shape of a
    /// renamed class or a misspelt file:
    ///
    /// ```text
    /// NoteDetail.js never loaded; namespace NoteDetailViewController has no file: renamed?
    /// Settings.js never loaded: no node's namespace asked for it
    /// ```
    ///
    /// A namespace is named beside the file whose name is a prefix of its own, or the other
    /// way round (ignoring case and a trailing `ViewController`, `Controller` or `View`); a file
    /// with no such namespace names up to three namespaces without a file in its folder.
    /// Namespaces without a file and no never-loaded file beside them make no line: most
    /// classes have no task file, on purpose. Paths are relative to the task folder.
    public var loadWarnings: [String] {
        let relative = { (path: String) -> String in
            guard let folder = taskFolder, path.hasPrefix(folder + "/") else { return path }
            return String(path.dropFirst(folder.count + 1))
        }
        let folderOf = { (path: String) -> String in (relative(path) as NSString).deletingLastPathComponent }
        let missing = namespacesWithoutTaskFile
        return files.filter { $0.status == .neverLoaded }.map { file in
            let name = relative(file.file)
            let stem = Self.stem(file.file)
            let alike = missing.filter { namespace in
                let other = Self.stem(namespace.file)
                return !stem.isEmpty && !other.isEmpty && (other.hasPrefix(stem) || stem.hasPrefix(other))
            }
            if !alike.isEmpty {
                let names = alike.map(\.namespace)
                let subject = names.count == 1 ? "namespace \(names[0]) has" : "namespaces \(names.joined(separator: ", ")) have"
                return "\(name) never loaded; \(subject) no file: renamed?"
            }
            let beside = missing.filter { folderOf($0.file) == folderOf(file.file) }.map(\.namespace)
            guard !beside.isEmpty else { return "\(name) never loaded: no node's namespace asked for it" }
            let listed = beside.prefix(3).joined(separator: ", ") + (beside.count > 3 ? " and \(beside.count - 3) more" : "")
            return "\(name) never loaded: no node's namespace asked for it (without a task file: \(listed))"
        }
    }

    /// A file's name without its folder, `.js` and a trailing `ViewController`, `Controller`
    /// or `View`, lowercased: what a rename usually keeps.
    private static func stem(_ path: String) -> String {
        var name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased()
        for suffix in ["viewcontroller", "controller", "view"] where name.hasSuffix(suffix) && name.count > suffix.count {
            name.removeLast(suffix.count)
            break
        }
        return name
    }

    /// A readable table: per file its tasks with their match and failure counts, then what
    /// never fired, never loaded or has no task file.
    public func report() -> String {
        var lines: [String] = []
        let relative = { (path: String) -> String in
            guard let folder = taskFolder, path.hasPrefix(folder + "/") else { return path }
            return String(path.dropFirst(folder.count + 1))
        }
        for file in files {
            let status: String
            switch file.status {
            case .loaded: status = "loaded"
            case .missing: status = "missing (a namespace asked for it)"
            case .failed: status = "failed" + (file.error.map { ": \($0)" } ?? "")
            case .neverLoaded: status = "never loaded (no node's namespace asked for it)"
            }
            lines.append("\(relative(file.file)): \(status)")
            for task in tasks where task.location?.file == file.file {
                let position = task.location.flatMap { $0.line }.map { "\($0)" } ?? "?"
                let failures = task.failures > 0 ? ", \(task.failures) failed" : ""
                let note = task.matches == 0 ? "  never fired" : ""
                lines.append("  \(position):\t\(task.task)\t\(task.matches) match\(task.matches == 1 ? "" : "es")\(failures)\(note)")
            }
        }
        let unplaced = tasks.filter { task in !files.contains { $0.file == task.location?.file } }
        for task in unplaced { lines.append("  \(task.task)\t\(task.matches) match\(task.matches == 1 ? "" : "es")") }
        let silent = namespacesWithoutTaskFile
        if !silent.isEmpty {
            lines.append("namespaces without a task file: " + silent.map { "\($0.namespace) (\(relative($0.file)))" }.joined(separator: ", "))
        }
        let existing = files.filter { $0.status != .missing }
        let neverLoaded = files.filter { $0.status == .neverLoaded }.count
        lines.append(
            "\(Self.count(tasks.count, "task")) (\(tasksNeverFired.count) never fired), "
                + "\(Self.count(existing.count, "task file")) (\(neverLoaded) never loaded), "
                + "\(Self.count(silent.count, "namespace")) without a task file")
        return lines.joined(separator: "\n")
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    /// Reads the core's `coverage()` value and adds the task folder's files the core never
    /// tried (listed from disk; none when the folder is not on disk).
    init(core value: JSONValue) {
        taskFolder = value["taskFolder"]?.stringValue
        tasks = (value["tasks"]?.arrayValue ?? []).map { entry in
            Task(
                task: entry["task"]?.stringValue ?? "", location: TaskLocation(fields: entry),
                matches: Int(entry["matches"]?.numberValue ?? 0), failures: Int(entry["failures"]?.numberValue ?? 0))
        }
        files = (value["files"]?.arrayValue ?? []).map { entry in
            File(
                file: entry["file"]?.stringValue ?? "", status: File.Status(rawValue: entry["status"]?.stringValue ?? "") ?? .failed,
                tasks: Int(entry["tasks"]?.numberValue ?? 0), error: entry["error"]?.stringValue)
        }
        namespaces = (value["namespaces"]?.arrayValue ?? []).map { entry in
            Namespace(
                namespace: entry["namespace"]?.stringValue ?? "", file: entry["file"]?.stringValue ?? "",
                hasTaskFile: entry["hasTaskFile"]?.boolValue ?? false)
        }
        if let taskFolder {
            // Files the core tried, and helpers its task files required, were loaded.
            let loaded = Set(files.map(\.file) + (value["modules"]?.arrayValue ?? []).compactMap(\.stringValue))
            for path in Self.taskFiles(under: taskFolder) where !loaded.contains(path) {
                files.append(File(file: path, status: .neverLoaded, tasks: 0, error: nil))
            }
        }
    }

    /// The `.js` and `.ts` files below `folder` on disk (not `.d.ts` declarations), outside
    /// `node_modules`, as absolute paths, sorted.
    public static func taskFiles(under folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if (relative as NSString).lastPathComponent == "node_modules" {
                enumerator.skipDescendants()
            } else if relative.hasSuffix(".js") || (relative.hasSuffix(".ts") && !relative.hasSuffix(".d.ts")) {
                found.append(folder + "/" + relative)
            }
        }
        return found.sorted()
    }
}
