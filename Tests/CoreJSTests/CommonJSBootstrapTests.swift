import Foundation
import Testing

@testable import CoreJS

@Suite("CommonJS bootstrap: read from its resource file, named in stack traces")
struct CommonJSBootstrapTests {
    /// The script as it stands in the source tree, beside the Swift that loads it.
    static let sourceFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/CoreJS/Modules/commonjs-bootstrap.js")

    @Test("the runtime's bootstrap is the text of Modules/commonjs-bootstrap.js")
    func readsTheResource() throws {
        let file = try String(contentsOf: Self.sourceFile, encoding: .utf8)
        #expect(try CommonJSBootstrap.source.get() == file)
    }

    @Test("an error thrown inside the bootstrap points at anna:commonjs-bootstrap.js and its line")
    func errorsNameTheBootstrap() throws {
        let lines = try String(contentsOf: Self.sourceFile, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let throwLine = try #require(lines.firstIndex { $0.contains("throw new TypeError('require(id)") }) + 1
        let runtime = try CommonJSRuntime(
            configuration: .init(
                fileAccess: InMemoryFileAccess([:]), console: Console(output: MemoryOutputSink())))
        let error = #expect(throws: JavaScriptError.self) {
            try runtime.context.evaluate("require('')", sourceURL: "/app/repl.js")
        }
        let exception = try #require(error?.exception)
        #expect(exception.name == "TypeError")
        #expect(exception.message == "require(id): id must be a non-empty string, got ")
        #expect(exception.sourceURL == "anna:commonjs-bootstrap.js")
        #expect(exception.line == throwLine)
        #expect(exception.stack?.contains("require@anna:commonjs-bootstrap.js:\(throwLine)") == true)
    }
}
