import CoreJS
import Foundation

/// One session to replay: an event-stream file and the name its outputs carry.
struct SessionFile: Sendable, Hashable {
    /// The file as given (or as found in a folder or a manifest).
    let path: String
    /// The file name without `.ndjson`: `DIR/<name>.ndjson`, the journal's key, `"session"` of
    /// `--meta` lines, what `--shard` hashes.
    let name: String

    init(path: String) {
        self.path = path
        let file = (path as NSString).lastPathComponent
        name = file.hasSuffix(".ndjson") ? String(file.dropLast(".ndjson".count)) : file
    }
}

/// Why the session list cannot be made.
enum SessionListError: Error, CustomStringConvertible, Equatable {
    /// A path given (or listed in a manifest) does not exist.
    case missing(String, listedIn: String?)
    /// The manifest cannot be read.
    case unreadable(String, reason: String)
    /// Different files with the same session name.
    case nameClash(name: String, paths: [String])
    /// A session name that cannot be an output file name.
    case unusableName(path: String)

    var description: String {
        switch self {
        case let .missing(path, manifest?): return "no such session file: \(path) (listed in \(manifest))"
        case let .missing(path, nil): return "no such session file or folder: \(path)"
        case let .unreadable(path, reason): return "cannot read \(path): \(reason)"
        case let .nameClash(name, paths):
            return "\(paths.count) files have the session name '\(name)' (\(paths.joined(separator: ", "))); "
                + "outputs are named by session, so names must be unique: rename one, or replay them in separate runs"
        case let .unusableName(path): return "\(path) has no usable session name (its file name is empty or starts with '.')"
        }
    }
}

/// The sessions of a run: the files given, the `.ndjson` files directly in the folders given,
/// and the files a manifest lists (one path a line, relative to the manifest's folder; blank
/// lines and lines starting with `#` skipped); the same file given twice counts once; sorted
/// by session name (then path), so every process given the same list sees the same order.
enum SessionList {
    /// The sessions of `arguments` and `manifest`.
    /// - Throws: ``SessionListError``.
    static func collect(arguments: [String], manifest: String?) throws -> [SessionFile] {
        var paths: [String] = []
        let files = LocalFileAccess()
        for argument in arguments {
            guard files.fileExists(atPath: argument) else { throw SessionListError.missing(argument, listedIn: nil) }
            if files.isDirectory(atPath: argument) {
                paths += try folderSessions(argument)
            } else {
                paths.append(argument)
            }
        }
        if let manifest { paths += try manifestSessions(manifest) }
        var seen = Set<String>()
        var sessions: [SessionFile] = []
        for path in paths where seen.insert(files.canonicalPath(path)).inserted {
            let session = SessionFile(path: path)
            guard !session.name.isEmpty, !session.name.hasPrefix("."), !session.name.contains("/") else {
                throw SessionListError.unusableName(path: path)
            }
            sessions.append(session)
        }
        sessions.sort { ($0.name, $0.path) < ($1.name, $1.path) }
        for (first, second) in zip(sessions, sessions.dropFirst()) where first.name == second.name {
            throw SessionListError.nameClash(name: first.name, paths: sessions.filter { $0.name == first.name }.map(\.path))
        }
        return sessions
    }

    /// The `.ndjson` files directly in `folder` (not in its subfolders).
    private static func folderSessions(_ folder: String) throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw SessionListError.unreadable(folder, reason: error.localizedDescription)
        }
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return names.filter { $0.hasSuffix(".ndjson") && !$0.hasPrefix(".") }.sorted().map { prefix + $0 }
            .filter { LocalFileAccess().isFile(atPath: $0) }
    }

    private static func manifestSessions(_ manifest: String) throws -> [String] {
        let text: String
        do {
            text = try String(contentsOfFile: manifest, encoding: .utf8)
        } catch {
            throw SessionListError.unreadable(manifest, reason: error.localizedDescription)
        }
        let base = ModulePath.directory(of: URL(fileURLWithPath: manifest).standardizedFileURL.path)
        var paths: [String] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let entry = line.trimmingCharacters(in: .whitespaces)
            guard !entry.isEmpty, !entry.hasPrefix("#") else { continue }
            let path = entry.hasPrefix("/") ? entry : base + "/" + entry
            guard LocalFileAccess().isFile(atPath: path) else { throw SessionListError.missing(path, listedIn: manifest) }
            paths.append(path)
        }
        return paths
    }
}
