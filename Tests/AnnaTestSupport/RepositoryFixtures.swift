import Foundation

/// The repository's `fixtures/` folder (the demo session, the protocol-only core and module),
/// copied once as this target's resource for every test target.
public enum RepositoryFixtures {
    /// The folder.
    public static let folder: URL = {
        guard let resources = Bundle.module.resourceURL else {
            fatalError("the AnnaTestSupport resource bundle is missing: rebuild the tests")
        }
        return resources.appendingPathComponent("fixtures", isDirectory: true)
    }()

    /// The recorded demo session, its module and expected results (`fixtures/demo`).
    public static var demo: URL { folder.appendingPathComponent("demo", isDirectory: true) }
    /// The GTK demo's recorded session with its screenshots (`fixtures/gtk`, `make gtk-fixture`).
    public static var gtk: URL { folder.appendingPathComponent("gtk", isDirectory: true) }
    /// A module built on a minimal hand-written core that follows only the protocol.
    public static var protocolModule: URL { folder.appendingPathComponent("protocol-module", isDirectory: true) }
}
