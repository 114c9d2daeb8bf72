/// Why a module could not be resolved or loaded.
public enum ModuleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No file matched the request from the requiring folder. `requiredFrom` names the
    /// requiring file and line (`/app/index.js:3`) when a module's `require` asked.
    case notFound(request: String, directory: String, requiredFrom: String? = nil)
    /// The request resolves (lexically or through a symbolic link) outside the allowed roots.
    /// `requiredFrom` as for ``notFound(request:directory:requiredFrom:)``.
    case outsideAllowedRoots(request: String, path: String, roots: [String], requiredFrom: String? = nil)
    /// The file exists but could not be read or parsed (`reason` says why).
    case unreadable(path: String, reason: String)
    /// An entry given to ``CommonJSRuntime/load(entry:)`` is a folder with nothing to load
    /// (no `index.js`, `index.json` or `package.json` main).
    case folderWithoutIndex(path: String)
    /// Both `X.js` and `X.ts` exist for a request that names neither: one would be ignored.
    case ambiguous(request: String, paths: [String])

    /// The message as JavaScript sees it.
    public var description: String {
        switch self {
        case let .notFound(request, _, requiredFrom?):
            return "Cannot find module '\(request)' from \(requiredFrom)"
        case let .notFound(request, directory, nil):
            return "Cannot find module '\(request)' from '\(directory)'"
        case let .outsideAllowedRoots(request, path, roots, requiredFrom):
            let from = requiredFrom.map { " from \($0)" } ?? ""
            return "Access denied: module '\(request)'\(from) resolves to '\(path)', outside the allowed roots ("
                + roots.joined(separator: ", ") + ")"
        case let .unreadable(path, reason):
            return "Cannot read module '\(path)': \(reason)"
        case let .folderWithoutIndex(path):
            return "'\(path)' is a folder without index.js"
        case let .ambiguous(request, paths):
            return "'\(request)' could be " + paths.joined(separator: " or ")
                + ": keep one of them (a JavaScript file and a TypeScript file of one name are not both loaded)"
        }
    }

    /// The same error said of a request made at `site` (`file:line`); other errors unchanged.
    func required(from site: String) -> ModuleError {
        switch self {
        case let .notFound(request, directory, _):
            return .notFound(request: request, directory: directory, requiredFrom: site)
        case let .outsideAllowedRoots(request, path, roots, _):
            return .outsideAllowedRoots(request: request, path: path, roots: roots, requiredFrom: site)
        case .unreadable, .folderWithoutIndex, .ambiguous:
            return self
        }
    }
}

extension ModuleError: JavaScriptThrowable {
    /// `Error`, as in Node.
    public var javaScriptName: String { "Error" }
    /// Same as ``description``.
    public var javaScriptMessage: String { description }
    /// `code`: `MODULE_NOT_FOUND`, `ERR_ACCESS_DENIED`, `ERR_MODULE_UNREADABLE` or
    /// `ERR_AMBIGUOUS_MODULE`.
    public var javaScriptProperties: [String: JSONValue] {
        switch self {
        case .notFound, .folderWithoutIndex: return ["code": "MODULE_NOT_FOUND"]
        case .outsideAllowedRoots: return ["code": "ERR_ACCESS_DENIED"]
        case .unreadable: return ["code": "ERR_MODULE_UNREADABLE"]
        case .ambiguous: return ["code": "ERR_AMBIGUOUS_MODULE"]
        }
    }
}
