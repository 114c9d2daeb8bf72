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
        for task in unplaced { lines.append("  \(task.task)\t\(task.matches) matches") }
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

    /// The `.js` files below `folder` on disk, outside `node_modules`, as absolute paths, sorted.
    public static func taskFiles(under folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if (relative as NSString).lastPathComponent == "node_modules" {
                enumerator.skipDescendants()
            } else if relative.hasSuffix(".js") {
                found.append(folder + "/" + relative)
            }
        }
        return found.sorted()
    }
}
