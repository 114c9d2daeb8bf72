import AnnaTestSupport
import Foundation

/// Paths of the analytics modules the tests load.
enum Fixtures {
    static let resources = Bundle.module.resourceURL!
    /// The shop module of the JS core tests (`Tests/AnnaTests/js-anna/fixtures/shop`).
    static let shopModule = resources.appendingPathComponent("js-anna/fixtures/shop")
    /// A module built on a minimal hand-written core that follows only the protocol.
    static let protocolModule = RepositoryFixtures.protocolModule
}
