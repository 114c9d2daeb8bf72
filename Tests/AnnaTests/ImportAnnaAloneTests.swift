// This file imports Anna and nothing of CoreJS or swift-log: it names the types that Anna
// re-exports (Sources/Anna/Exports.swift), and compiles only while they come with `import Anna`.
import Anna
import Foundation
import Testing

@Suite("import Anna alone")
struct ImportAnnaAloneTests {
    @Test("a manager configured and read through the re-exported types: FileAccess, OutputSink, Console, Logger, JSONValue")
    func configuredAndRead() async throws {
        let files: any FileAccess = moduleFiles(
            tasks: "match('tap', node => { console.log('tapped', node.path); console.error('noted'); return { path: node.path, rows: [1, 2] } })")
        let output = MemoryOutputSink()
        let errorOutput: any OutputSink = MemoryOutputSink()
        var dependency = Manager.Dependency()
        dependency.runtime = RuntimeConfiguration(fileAccess: files, console: Console(output: output, errorOutput: errorOutput))
        dependency.logger = Logger(label: "import-anna-alone")
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/m"), dependency: dependency)
        let delegate = CollectingDelegate()
        manager.delegate = delegate

        let app = HostApplication(manager: manager)
        let screen = HostScreen(parent: app)
        screen.analyzer.enable(naming: "home")
        screen.analyzer.record("tap")
        await manager.flush()

        let expected: JSONValue = ["path": "/home", "rows": [1, 2]]
        #expect(delegate.results.map(\.value) == [expected])
        #expect(delegate.errors.isEmpty)
        #expect(output.lines == ["tapped /home"])
        #expect((errorOutput as? MemoryOutputSink)?.lines == ["noted"])
    }

    @Test("a module that does not parse reaches the delegate as a JavaScriptError with its JavaScriptException")
    func scriptErrors() async throws {
        let files = moduleFiles(tasks: "", extra: ["/m/index.js": "module.exports = ;"])
        var dependency = Manager.Dependency(fileAccess: files)
        dependency.runtime.console = Console(output: MemoryOutputSink())
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/m"), dependency: dependency)
        let delegate = CollectingDelegate()
        manager.delegate = delegate
        let app = HostApplication(manager: manager)
        let screen = HostScreen(parent: app)
        screen.analyzer.enable(naming: "home")
        await manager.flush()

        let failure = try #require(delegate.errors.first as? AnalyticsError)
        guard case .moduleLoadFailed(_, let error) = failure else {
            Issue.record("expected moduleLoadFailed, got \(failure)")
            return
        }
        let javaScriptError: JavaScriptError = error
        let exception: JavaScriptException? = javaScriptError.exception
        #expect(exception?.name == "SyntaxError")
    }
}
