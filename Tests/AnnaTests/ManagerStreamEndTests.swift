import Anna
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@Suite("The manager's async sequences", .timeLimit(.minutes(5)))
struct ManagerStreamEndTests {
    @Test("results() and errors() end when the manager is released, so their loops end")
    func endWithManager() async throws {
        var manager: Manager? = Manager(moduleURL: URL(fileURLWithPath: "/nowhere"))
        let results = try #require(manager).results()
        let errors = try #require(manager).errors()
        let resultsEnded = Task { for await _ in results {} }
        let errorsEnded = Task { for await _ in errors {} }
        manager = nil
        await resultsEnded.value
        await errorsEnded.value
    }
}
