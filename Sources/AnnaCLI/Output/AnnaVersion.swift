/// The version `anna --version` prints; CHANGELOG.md names the same.
public enum AnnaVersion {
    /// The current version.
    public static let current = "0.4.0"
}
