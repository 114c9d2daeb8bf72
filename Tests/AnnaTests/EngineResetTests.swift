import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@testable import Anna

/// ``AnalyticsEngine/reset()``: an engine reset between sessions behaves as a fresh one.
@Suite("Engine reset")
struct EngineResetTests {
    /// Tasks that change every kind of state a session could leave: module variables, a
    /// global, the core's exports, a built-in prototype, and kept events and nodes.
    static let tasks = """
        let count = 0;
        const anna = require('anna');
        globalThis.sessions = (globalThis.sessions || 0) + 1;
        anna.patched = (anna.patched || 0) + 1;
        anna.Manager.prototype.extra = (anna.Manager.prototype.extra || 0) + 1;
        Object.defineProperty(String.prototype, 'shout', { value: function () { return this + '!'; }, configurable: true });
        match('/tap', (n) => ({ count: ++count, sessions: globalThis.sessions, patched: anna.patched,
          extra: anna.Manager.prototype.extra, events: n.events ? n.events.length : null, shout: 'x'.shout() }));
        """

    /// One session: the root, then two taps; its results.
    static func session(on engine: AnalyticsEngine, into results: Results) throws -> [JSONValue] {
        results.values = []
        results.values += try engine.registerNode(id: NodeID(1), parent: nil, name: "__root__").map(\.value)
        results.values += try engine.recordEvent(name: "tap", nodeID: NodeID(1)).map(\.value)
        results.values += try engine.recordEvent(name: "tap", nodeID: NodeID(1)).map(\.value)
        return results.values
    }

    final class Results {
        var values: [JSONValue] = []
    }

    static func makeEngine(into results: Results, tasks: String = tasks) throws -> AnalyticsEngine {
        var configuration = AnalyticsEngine.Configuration(
            moduleURL: URL(fileURLWithPath: "/m"), fileAccess: moduleFiles(tasks: tasks), console: Console(output: MemoryOutputSink()))
        configuration.resettable = true
        return try AnalyticsEngine(configuration: configuration)
    }

    @Test("every session on a reset engine gives what it gives on a fresh one")
    func resetEqualsFresh() throws {
        let results = Results()
        let fresh = try Self.session(on: try Self.makeEngine(into: results), into: results)
        #expect(fresh.first?["count"] == 1 && fresh.first?["sessions"] == 1 && fresh.first?["extra"] == 1 && fresh.first?["shout"] == "x!")
        let engine = try Self.makeEngine(into: results)
        for _ in 0..<3 {
            #expect(try Self.session(on: engine, into: results) == fresh)
            try engine.reset()  // the root registers again: the old tree is gone
        }
        #expect(try Self.session(on: engine, into: results) == fresh)
        #expect(try engine.coverage().tasks.map(\.matches) == [2])  // this session's matches only
    }

    @Test("a change a reset cannot undo is reported, and the engine is not reused")
    func frozenBuiltIn() throws {
        let results = Results()
        let engine = try Self.makeEngine(into: results, tasks: "Object.defineProperty(globalThis, 'stuck', { value: 1 });\nmatch('/tap', () => 1);")
        _ = try Self.session(on: engine, into: results)
        do {
            try engine.reset()
            Issue.record("the reset did not report the property it cannot delete")
        } catch {
            #expect("\(error)".contains("a script made changes that cannot be undone (globalThis.stuck)"))
        }
    }

    @Test("an engine made without resettable refuses a reset and says what to set")
    func notResettable() throws {
        let engine = try AnalyticsEngine(
            configuration: .init(
                moduleURL: URL(fileURLWithPath: "/m"), fileAccess: moduleFiles(tasks: Self.tasks), console: Console(output: MemoryOutputSink())))
        #expect(throws: (any Error).self) { try engine.reset() }
        do {
            try engine.reset()
        } catch {
            #expect("\(error)".contains("set it to reset the engine"))
        }
    }
}
