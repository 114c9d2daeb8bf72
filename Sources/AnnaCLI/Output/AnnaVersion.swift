import Anna

/// The version `anna --version` prints; CHANGELOG.md names the same.
public enum AnnaVersion {
    /// The current version: the library's.
    public static let current = AnnaLibrary.version
}
