/// Why a module could not be resolved or loaded.
public enum ModuleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No file matched the request from the requiring folder.
    case notFound(request: String, directory: String)
    /// The request resolves (lexically or through a symbolic link) outside the allowed roots.
    case outsideAllowedRoots(request: String, path: String, roots: [String])
    /// The file exists but could not be read or parsed (`reason` says why).
    case unreadable(path: String, reason: String)

    /// The message as JavaScript sees it.
    public var description: String {
        switch self {
        case let .notFound(request, directory):
            return "Cannot find module '\(request)' from '\(directory)'"
        case let .outsideAllowedRoots(request, path, roots):
            return "Access denied: module '\(request)' resolves to '\(path)', outside the allowed roots ("
                + roots.joined(separator: ", ") + ")"
        case let .unreadable(path, reason):
            return "Cannot read module '\(path)': \(reason)"
        }
    }
}

extension ModuleError: JavaScriptThrowable {
    /// `Error`, as in Node.
    public var javaScriptName: String { "Error" }
    /// Same as ``description``.
    public var javaScriptMessage: String { description }
    /// `code`: `MODULE_NOT_FOUND`, `ERR_ACCESS_DENIED` or `ERR_MODULE_UNREADABLE`.
    public var javaScriptProperties: [String: JSONValue] {
        switch self {
        case .notFound: return ["code": "MODULE_NOT_FOUND"]
        case .outsideAllowedRoots: return ["code": "ERR_ACCESS_DENIED"]
        case .unreadable: return ["code": "ERR_MODULE_UNREADABLE"]
        }
    }
}
