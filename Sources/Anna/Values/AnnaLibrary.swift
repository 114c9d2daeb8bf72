/// This library's name and version, as destinations receive them (Segment's
/// `context.library`, PostHog's `$lib`, Amplitude's `library`).
public enum AnnaLibrary {
    /// `anna-linux`.
    public static let name = "anna-linux"
    /// The version; `anna --version` and CHANGELOG.md name the same.
    public static let version = "0.4.0"
}
