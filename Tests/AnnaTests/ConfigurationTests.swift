import Anna
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@Suite("One runtime configuration, passed down unchanged")
struct ConfigurationTests {
    @Test("a manager's dependency reads and writes the runtime configuration under the reference names")
    func dependencyForwards() {
        let output = MemoryOutputSink()
        let errors = MemoryOutputSink()
        var dependency = Manager.Dependency(debug: true, standardOutput: output, executionTimeLimit: .seconds(3))
        #expect(dependency.runtime.debug && dependency.debug)
        #expect(dependency.runtime.executionTimeLimit == .seconds(3))
        #expect(dependency.runtime.console.errorOutput as? MemoryOutputSink === output, "warnings go to the output unless told")
        let laterOutput = MemoryOutputSink()
        dependency.standardOutput = laterOutput
        #expect(dependency.standardError == nil)
        #expect(dependency.runtime.console.errorOutput as? MemoryOutputSink === laterOutput, "warnings follow a later output too")
        dependency.standardError = errors
        dependency.coreJSModuleURL = URL(fileURLWithPath: "/opt/core/anna")
        dependency.additionalAllowedRoots = [URL(fileURLWithPath: "/shared")]
        #expect(dependency.runtime.console.errorOutput as? MemoryOutputSink === errors)
        #expect(dependency.runtime.coreURL.path == "/opt/core/anna")
        #expect(dependency.runtime.additionalAllowedRoots.map(\.path) == ["/shared"])
    }

    @Test("an engine configuration carries the same runtime configuration")
    func engineConfigurationCarriesRuntime() {
        let runtime = RuntimeConfiguration(debug: true, executionTimeLimit: .milliseconds(500))
        var configuration = AnalyticsEngine.Configuration(moduleURL: URL(fileURLWithPath: "/m"), runtime: runtime)
        #expect(configuration.debug && configuration.executionTimeLimit == .milliseconds(500))
        configuration.executionTimeLimit = .seconds(4)
        #expect(configuration.runtime.executionTimeLimit == .seconds(4))
        let spelledOut = AnalyticsEngine.Configuration(moduleURL: URL(fileURLWithPath: "/m"), debug: true, executionTimeLimit: .milliseconds(500))
        #expect(spelledOut.runtime.debug && spelledOut.runtime.executionTimeLimit == .milliseconds(500))
    }

    @Test("the runtime recipe finds the bundled core and confines reading to the given folder and the core")
    func runtimeRecipe() throws {
        try withTemporaryFolder(["app/index.js": "module.exports = typeof require('anna').configured"]) { folder in
            let runtime = try RuntimeConfiguration(console: Console(output: MemoryOutputSink()))
                .makeRuntime(confinedTo: folder.appendingPathComponent("app").path)
            #expect(try runtime.load(entry: folder.appendingPathComponent("app/index.js").path).toJSON() == "function")
            #expect(throws: JavaScriptError.self) { try runtime.require("/etc/hostname") }
        }
    }
}
