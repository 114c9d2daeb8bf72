/// Pure string operations on absolute `/`-separated paths, independent of the file system.
public enum ModulePath {
    /// Removes `.` and empty components and applies `..` lexically (`/a/b/../c` → `/a/c`);
    /// `..` above the root stays at the root.
    public static func normalize(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": if !components.isEmpty { components.removeLast() }
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    /// `relative` resolved against the folder `base`, normalized; an absolute `relative` wins.
    public static func join(_ base: String, _ relative: String) -> String {
        normalize(relative.hasPrefix("/") ? relative : base + "/" + relative)
    }

    /// The folder holding `path` (`/a/b.js` → `/a`, `/a` → `/`).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Whether `path` is `root` or lies below it.
    public static func isInside(_ path: String, root: String) -> Bool {
        root == "/" || path == root || path.hasPrefix(root + "/")
    }
}
