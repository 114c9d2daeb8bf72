/// Node's CommonJS resolution over a ``FileAccess``, confined to allowed root folders.
///
/// For a request `x` required from folder `D`:
/// 1. `./x`, `../x`, `.`, `..` are taken relative to `D`; `/x` is absolute.
/// 2. A bare `x` is looked for in `node_modules` folders from `D` upward (skipping folders that
///    are themselves named `node_modules`), then in each search path.
/// 3. Each candidate `X` is tried as: the file `X`, `X.js`, `X.json`, `X.ts`, then as a folder:
///    `X/package.json`'s `main` (as a file, then as a folder index), `X/index.js`,
///    `X/index.json`, `X/index.ts`. Where both `X.js` and `X.ts` exist the request is
///    ambiguous (``ModuleError/ambiguous(request:paths:)``): one of them would be ignored.
///
/// A candidate outside the allowed roots is never probed; a relative or absolute request that
/// points outside them, or a found file whose real path (symbolic links resolved) is outside
/// them, is refused with ``ModuleError/outsideAllowedRoots(request:path:roots:)``.
public struct ModuleResolver: Sendable {
    /// Where files come from.
    public var fileAccess: any FileAccess
    /// Folders searched for bare requests after the `node_modules` folders.
    public var searchPaths: [String]
    /// Canonical folders that modules may be read from.
    public var allowedRoots: [String]

    /// Creates a resolver; roots are canonicalized through `fileAccess`.
    public init(fileAccess: any FileAccess, searchPaths: [String], allowedRoots: [String]) {
        self.fileAccess = fileAccess
        self.searchPaths = searchPaths.map { fileAccess.canonicalPath(ModulePath.normalize($0)) }
        self.allowedRoots = allowedRoots.map { fileAccess.canonicalPath(ModulePath.normalize($0)) }
    }

    /// The canonical path of the file `request` names when required from `directory`.
    /// - Throws: ``ModuleError``.
    public func resolve(_ request: String, from directory: String) throws -> String {
        if Self.isPathRequest(request) {
            let candidate = ModulePath.join(directory, request)
            guard isAllowed(candidate) else {
                throw ModuleError.outsideAllowedRoots(request: request, path: candidate, roots: allowedRoots)
            }
            if let found = try find(candidate) { return try checked(found, request: request) }
        } else {
            for folder in Self.nodeModulesFolders(from: directory) + searchPaths {
                let candidate = ModulePath.join(folder, request)
                guard isAllowed(candidate) else { continue }
                if let found = try find(candidate) { return try checked(found, request: request) }
            }
        }
        throw ModuleError.notFound(request: request, directory: directory)
    }

    /// Whether the path (taken as is) lies inside an allowed root.
    public func isAllowed(_ path: String) -> Bool {
        allowedRoots.contains { ModulePath.isInside(path, root: $0) }
    }

    /// Whether a request is a path (relative or absolute) rather than a bare package name.
    static func isPathRequest(_ request: String) -> Bool {
        request.hasPrefix("/") || request.hasPrefix("./") || request.hasPrefix("../")
            || request == "." || request == ".."
    }

    /// `D/node_modules`, `parent(D)/node_modules`, … up to `/node_modules`.
    static func nodeModulesFolders(from directory: String) -> [String] {
        var folders: [String] = []
        var current = ModulePath.normalize(directory)
        while true {
            if !current.hasSuffix("/node_modules") {
                folders.append(current == "/" ? "/node_modules" : current + "/node_modules")
            }
            if current == "/" { return folders }
            current = ModulePath.directory(of: current)
        }
    }

    private func checked(_ path: String, request: String) throws -> String {
        let canonical = fileAccess.canonicalPath(path)
        guard isAllowed(canonical) else {
            throw ModuleError.outsideAllowedRoots(request: request, path: canonical, roots: allowedRoots)
        }
        return canonical
    }

    private func find(_ candidate: String) throws -> String? {
        try findFile(candidate) ?? findInFolder(candidate)
    }

    private func findFile(_ candidate: String) throws -> String? {
        if fileAccess.isFile(atPath: candidate) { return candidate }
        return try firstWithExtension(candidate)
    }

    private func findIndex(_ folder: String) throws -> String? {
        try firstWithExtension(folder + "/index")
    }

    /// `stem.js`, `stem.json` or `stem.ts`, whichever exists first; both `.js` and `.ts` is
    /// an error.
    private func firstWithExtension(_ stem: String) throws -> String? {
        let found = [stem + ".js", stem + ".json", stem + ".ts"].filter { fileAccess.isFile(atPath: $0) }
        if found.contains(stem + ".js"), found.contains(stem + ".ts") {
            throw ModuleError.ambiguous(request: stem, paths: [stem + ".js", stem + ".ts"])
        }
        return found.first
    }

    private func findInFolder(_ folder: String) throws -> String? {
        guard fileAccess.isDirectory(atPath: folder) else { return nil }
        let manifestPath = folder + "/package.json"
        if fileAccess.isFile(atPath: manifestPath), let main = try mainEntry(ofManifest: manifestPath) {
            let target = ModulePath.join(folder, main)
            if isAllowed(target), let found = try findFile(target) ?? findIndex(target) { return found }
        }
        return try findIndex(folder)
    }

    private func mainEntry(ofManifest path: String) throws -> String? {
        let manifest: JSONValue
        do {
            manifest = try JSONValue(parsing: fileAccess.readFile(atPath: path))
        } catch {
            throw ModuleError.unreadable(path: path, reason: String(describing: error))
        }
        guard let main = manifest["main"]?.stringValue, !main.isEmpty else { return nil }
        return main
    }
}
