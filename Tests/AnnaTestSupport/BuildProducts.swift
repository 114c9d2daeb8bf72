import Foundation

/// The products of the build the tests run in (`.build/<configuration>/`).
public enum BuildProducts {
    /// The build folder: where SwiftPM puts the executables beside the resource bundles.
    public static let folder: URL = Bundle.module.bundleURL.deletingLastPathComponent()

    /// The executable product `name` of this build.
    public static func executable(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }
}
