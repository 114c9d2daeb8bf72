import Anna
import CoreJS
import Foundation
import Testing

/// One test function exported by a `JSCore/*.test.js` file.
struct JSCoreCase: CustomTestStringConvertible, Sendable {
    let file: String
    let name: String
    var testDescription: String { "\(file): \(name)" }

    static let folder = Bundle.module.resourceURL!.appendingPathComponent("JSCore").path

    /// Every exported test of every file, discovered by loading the files once.
    static let all: [JSCoreCase] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return files.filter { $0.hasSuffix(".test.js") }.sorted().flatMap { file -> [JSCoreCase] in
            guard let runtime = try? makeRuntime(console: Console(output: MemoryOutputSink())),
                let exports = try? runtime.load(entry: folder + "/" + file),
                let names = try? runtime.context.globalObject.property("Object").invokeMethod("keys", [exports]).toJSON()
            else { return [JSCoreCase(file: file, name: "(file failed to load)")] }
            return (names.arrayValue ?? []).compactMap(\.stringValue).map { JSCoreCase(file: file, name: $0) }
        }
    }()

    /// A runtime where `require('anna')` finds the bundled core, confined to the tests and the core.
    static func makeRuntime(console: Console) throws -> CommonJSRuntime {
        let core = BundledCore.folderURL.path
        return try CommonJSRuntime(
            context: JavaScriptContext(executionTimeLimit: 10),
            configuration: .init(
                searchPaths: [ModulePath.directory(of: core)], allowedRoots: [folder, core],
                console: console, baseDirectory: folder))
    }
}

@Suite("JavaScript core, tested inside the embedded engine")
struct JSCoreTests {
    @Test(arguments: JSCoreCase.all)
    func run(_ testCase: JSCoreCase) throws {
        let output = MemoryOutputSink()
        let runtime = try JSCoreCase.makeRuntime(console: Console(output: output))
        let exports = try runtime.load(entry: JSCoreCase.folder + "/" + testCase.file)
        let test = try exports.property(testCase.name)
        do {
            try test.call([JSONValue](), operation: "test '\(testCase.name)'")
        } catch let error as JavaScriptError {
            Issue.record("\(error)\n\(error.exception?.stack ?? "")\nconsole:\n\(output.text)")
        }
    }

    @Test("the test files were found")
    func discovered() {
        #expect(JSCoreCase.all.count > 20)
        #expect(!JSCoreCase.all.contains { $0.name == "(file failed to load)" })
    }
}
