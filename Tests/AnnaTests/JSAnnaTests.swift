import CoreJS
import Foundation
import Testing

@testable import Anna

/// One test function exported by a `js-anna/*.test.js` file: the tests of the bundled
/// JavaScript core (`js/anna`) and of the bridge's JavaScript half, run inside the embedded
/// engine.
struct JSAnnaCase: CustomTestStringConvertible, Sendable {
    let file: String
    let name: String
    var testDescription: String { "\(file): \(name)" }

    static let folder = Bundle.module.resourceURL!.appendingPathComponent("js-anna").path

    /// Every exported test of every file, discovered by loading the files once.
    static let all: [JSAnnaCase] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return files.filter { $0.hasSuffix(".test.js") }.sorted().flatMap { file -> [JSAnnaCase] in
            guard let runtime = try? makeRuntime(console: Console(output: MemoryOutputSink())),
                let exports = try? runtime.load(entry: folder + "/" + file),
                let names = try? runtime.context.globalObject.property("Object").invokeMethod("keys", [exports]).toJSON()
            else { return [JSAnnaCase(file: file, name: "(file failed to load)")] }
            return (names.arrayValue ?? []).compactMap(\.stringValue).map { JSAnnaCase(file: file, name: $0) }
        }
    }()

    /// A runtime where `require('anna')` finds the bundled core, confined to the tests and the
    /// core, with the global `moduleBridge`: `install` (the bridge's installer, evaluated from
    /// its resource as the engine does), `wire` (the wire table the engine hands it), `parts`
    /// (the pieces it hands it too), `builtIns` and `walk` (the captured built-ins and the realm
    /// walk) and `engineReset` (the reset script, a function of both).
    static func makeRuntime(console: Console) throws -> CommonJSRuntime {
        // Each test is one call: some build trees of 100,000 nodes and snapshot them, past the
        // default memory limit, which is not what they test.
        let runtime = try RuntimeConfiguration(executionTimeLimit: .seconds(10), console: console, memoryLimit: nil).makeRuntime(confinedTo: folder)
        let context = runtime.context
        let bridge = try context.evaluate("({})", sourceURL: "js-anna-harness")
        let scripts = try ModuleBridge.Scripts(context: context)
        try bridge.setProperty("install", scripts.install)
        try bridge.setProperty("wire", BridgeWire.table)
        try bridge.setProperty("parts", scripts.parts)
        let (builtIns, walk) = try HostScript.walk(in: context)
        try bridge.setProperty("builtIns", builtIns)
        try bridge.setProperty("walk", walk)
        try bridge.setProperty("engineReset", try HostScript.engineReset.evaluate(in: context))
        try context.globalObject.setProperty("moduleBridge", bridge)
        return runtime
    }
}

@Suite("js/anna and the bridge's JavaScript half, tested inside the embedded engine")
struct JSAnnaTests {
    @Test(arguments: JSAnnaCase.all)
    func run(_ testCase: JSAnnaCase) throws {
        let output = MemoryOutputSink()
        let runtime = try JSAnnaCase.makeRuntime(console: Console(output: output))
        let exports = try runtime.load(entry: JSAnnaCase.folder + "/" + testCase.file)
        let test = try exports.property(testCase.name)
        do {
            try test.call([JSONValue](), operation: "test '\(testCase.name)'")
        } catch let error as JavaScriptError {
            Issue.record("\(error)\n\(error.exception?.stack ?? "")\nconsole:\n\(output.text)")
        }
    }

    @Test("the test files were found")
    func discovered() {
        #expect(JSAnnaCase.all.count > 20)
        #expect(!JSAnnaCase.all.contains { $0.name == "(file failed to load)" })
        #expect(JSAnnaCase.all.contains { $0.file == "module-bridge.test.js" })
    }
}
