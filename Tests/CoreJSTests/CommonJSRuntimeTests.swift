import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@Suite("CommonJS runtime: modules, cache, cycles, console, roots")
struct CommonJSRuntimeTests {
    let output = MemoryOutputSink()
    let errors = MemoryOutputSink()

    func runtime(_ files: [String: String], searchPaths: [String] = [], roots: [String]? = nil) throws -> CommonJSRuntime {
        try CommonJSRuntime(
            configuration: .init(
                searchPaths: searchPaths, allowedRoots: roots, fileAccess: InMemoryFileAccess(files),
                console: Console(output: output, errorOutput: errors), baseDirectory: "/app"))
    }

    @Test("a module sees exports, require, module, __filename and __dirname")
    func wrapperArguments() throws {
        let runtime = try runtime([
            "/app/index.js": """
            exports.file = __filename; exports.dir = __dirname;
            exports.same = module.exports === exports && this === exports;
            exports.helper = require('./lib/helper').name;
            exports.moduleId = module.id;
            """,
            "/app/lib/helper.js": "module.exports = { name: 'helper from ' + __dirname }",
        ])
        #expect(
            try runtime.load(entry: "/app/index.js").toJSON() == [
                "file": "/app/index.js", "dir": "/app", "same": true, "helper": "helper from /app/lib",
                "moduleId": "/app/index.js",
            ])
    }

    @Test("modules are cached by resolved path; deleting the entry loads the file again")
    func cache() throws {
        let runtime = try runtime([
            "/app/counter.js": "globalThis.loads = (globalThis.loads || 0) + 1; module.exports = { loads: globalThis.loads }",
            "/app/index.js": """
            const first = require('./counter');
            const again = require('./counter.js');
            const resolved = require.resolve('./counter');
            delete require.cache[resolved];
            const reloaded = require('./counter');
            module.exports = { same: first === again, resolved, first: first.loads, reloaded: reloaded.loads,
                               cached: Object.keys(require.cache).sort() };
            """,
        ])
        #expect(
            try runtime.load(entry: "/app/index.js").toJSON() == [
                "same": true, "resolved": "/app/counter.js", "first": 1, "reloaded": 2,
                "cached": ["/app/counter.js", "/app/index.js"],
            ])
    }

    @Test("cyclic requires see the partial exports, as in Node")
    func cycles() throws {
        let runtime = try runtime(
            [
                "/app/a.js": "exports.early = 'a-early'; const b = require('./b'); exports.sawFromB = b.sawFromA; exports.done = true;",
                "/app/b.js": "const a = require('./a'); exports.sawFromA = JSON.stringify(a); exports.done = true;",
            ], roots: ["/app"])
        #expect(try runtime.require("./a").toJSON() == ["early": "a-early", "sawFromB": #"{"early":"a-early"}"#, "done": true])
    }

    @Test("a module whose body throws is not cached and loads again next time")
    func throwingModule() throws {
        let runtime = try runtime(
            [
                "/app/flaky.js": """
                globalThis.attempts = (globalThis.attempts || 0) + 1;
                if (globalThis.attempts === 1) throw new Error('first attempt fails');
                module.exports = 'attempt ' + globalThis.attempts;
                """
            ], roots: ["/app"])
        let error = #expect(throws: JavaScriptError.self) { try runtime.require("./flaky") }
        #expect(error?.exception?.message == "first attempt fails")
        #expect(error?.exception?.location?.hasPrefix("/app/flaky.js:2") == true)
        #expect(try runtime.require("./flaky").toJSON() == "attempt 2")
    }

    @Test("JSON modules are parsed; a broken one names the file")
    func jsonModules() throws {
        let runtime = try runtime(["/app/config.json": #"{ "name": "shop", "list": [1, 2] }"#, "/app/bad.json": "{ nope"], roots: ["/app"])
        #expect(try runtime.require("./config").toJSON() == ["name": "shop", "list": [1, 2]])
        let error = #expect(throws: JavaScriptError.self) { try runtime.require("./bad.json") }
        #expect(error?.exception?.name == "SyntaxError")
        #expect(error?.exception?.message.hasPrefix("/app/bad.json: ") == true)
    }

    @Test("a missing module fails with Node's message and code")
    func missingModule() throws {
        let runtime = try runtime(["/app/index.js": "try { require('./gone') } catch (e) { module.exports = { message: e.message, code: e.code } }"])
        #expect(
            try runtime.load(entry: "/app/index.js").toJSON() == [
                "message": "Cannot find module './gone' from /app/index.js:1", "code": "MODULE_NOT_FOUND",
            ])
        let error = #expect(throws: JavaScriptError.self) { try runtime.require("absent-package") }
        #expect(error?.exception?.message == "Cannot find module 'absent-package' from '/app'")
    }

    @Test("bare names come from node_modules, then from the search paths")
    func searchPaths() throws {
        let runtime = try runtime(
            [
                "/app/index.js": "module.exports = [require('anna').who, require('local').who]",
                "/app/node_modules/local/index.js": "exports.who = 'node_modules'",
                "/opt/js/anna/package.json": #"{ "main": "main.js" }"#,
                "/opt/js/anna/main.js": "exports.who = 'search path'",
            ], searchPaths: ["/opt/js"])
        #expect(try runtime.load(entry: "/app/index.js").toJSON() == ["search path", "node_modules"])
    }

    @Test("console formats its arguments into the injected sinks")
    func console() throws {
        let runtime = try runtime([:])
        try runtime.context.evaluate(
            """
            const cyclic = { id: 1 }; cyclic.me = cyclic;
            console.log('text', 42, { a: [1, 'two', null], u: undefined }, undefined, null);
            console.info('info', true);
            console.debug(function named() {});
            console.warn('careful', cyclic);
            console.error(new TypeError('bad'));
            console.log(global === globalThis, typeof global.require);
            """, sourceURL: "/app/console.js")
        #expect(
            output.lines == [
                #"text 42 {"a":[1,"two",null],"u":undefined} undefined null"#,
                "info true",
                "[Function: named]",
                "true function",
            ])
        #expect(errors.lines.first == #"careful {"id":1,"me":[Circular]}"#)
        #expect(errors.lines.dropFirst().first == "TypeError: bad")
    }

    @Test("a module body cannot close the wrapper and run code outside it")
    func wrapperEscape() throws {
        let runtime = try runtime(["/app/escape.js": "}); globalThis.escaped = true; (function () {"], roots: ["/app"])
        let error = #expect(throws: JavaScriptError.self) { try runtime.require("./escape") }
        #expect(error?.exception?.name == "SyntaxError")
        #expect(try runtime.context.evaluate("typeof globalThis.escaped", sourceURL: "/t.js").toJSON() == "undefined")
    }

    @Test("a module reached through a symbolic link to its folder loads from its real place")
    func symlinkedEntry() throws {
        let files = ["real/index.js": "module.exports = require('./helper') + 1", "real/helper.js": "module.exports = 41"]
        try withTemporaryFolder(files, links: ["link": "real"]) { base in
            let runtime = try CommonJSRuntime(configuration: .init(console: Console(output: output)))
            #expect(try runtime.load(entry: base.appendingPathComponent("link/index.js").path).toJSON() == 42)
        }
    }

    @Test("requests that climb out of the allowed roots are refused")
    func refusedTraversal() throws {
        let runtime = try runtime([
            "/app/index.js": "module.exports = require('../secret/key')",
            "/secret/key.js": "module.exports = 'leaked'",
        ])
        let error = #expect(throws: JavaScriptError.self) { try runtime.load(entry: "/app/index.js") }
        #expect(
            error?.exception?.message
                == "Access denied: module '../secret/key' from /app/index.js:1 resolves to '/secret/key', outside the allowed roots (/app)"
        )
        #expect(error?.exception?.thrownValue["code"] == "ERR_ACCESS_DENIED")
    }

    @Test("a symbolic link pointing outside the roots is refused", .enabled(if: FileManager.default.isWritableFile(atPath: NSTemporaryDirectory())))
    func refusedSymlink() throws {
        let files = [
            "outside/secret.js": "module.exports = 'secret'",
            "app/inside.js": "module.exports = 'inside'",
            "app/index.js": "module.exports = require('./link')",
        ]
        try withTemporaryFolder(files, links: ["app/link.js": "outside/secret.js", "app/alias.js": "app/inside.js"]) { base in
            let app = base.appendingPathComponent("app")
            let outside = base.appendingPathComponent("outside")
            let runtime = try CommonJSRuntime(configuration: .init(console: Console(output: output)))
            let error = #expect(throws: JavaScriptError.self) { try runtime.load(entry: app.path + "/index.js") }
            #expect(
                error?.exception?.message.contains(
                    "resolves to '\(LocalFileAccess().canonicalPath(outside.path))/secret.js', outside the allowed roots") == true)
            // A link that stays inside is fine, and is cached under its real path.
            #expect(try runtime.require(app.path + "/alias").toJSON() == "inside")
        }
    }

    @Test("modules load from disk through the default file access")
    func diskModules() throws {
        let files = ["index.js": "module.exports = require('./lib') + 1", "lib/index.js": "#!/usr/bin/env node\nmodule.exports = 41"]
        try withTemporaryFolder(files) { base in
            let runtime = try CommonJSRuntime(configuration: .init(console: Console(output: output)))
            #expect(try runtime.load(entry: base.path + "/index.js").toJSON() == 42)
        }
    }

    @Test("the global require is relative to the base directory and rejects bad ids")
    func globalRequire() throws {
        let runtime = try runtime(["/app/x.js": "module.exports = 'x'"], roots: ["/app"])
        #expect(try runtime.context.evaluate("require('./x')", sourceURL: "/app/repl.js").toJSON() == "x")
        let error = #expect(throws: JavaScriptError.self) { try runtime.context.evaluate("require('')", sourceURL: "/app/repl.js") }
        #expect(error?.exception?.name == "TypeError")
    }

    /// Loads `/app/counted.js` twice (emptying the cache in between) and tells what the two
    /// runs share.
    static let loadsTwice = """
        function load() { delete require.cache[require.resolve('./counted')]; return require('./counted'); }
        const first = load(); first.next(); first.next();
        const second = load();
        module.exports = { sameFunction: first.wrapper === second.wrapper, fresh: second.next(), marked: first.wrapper.mark !== undefined,
          frozen: Object.isFrozen(first.wrapper) && Object.isFrozen(first.wrapper.prototype) };
        """
    static let counted = "let calls = 0; exports.next = () => ++calls; exports.wrapper = arguments.callee; arguments.callee.mark = 1;"

    @Test(
        "with reusesCompiledModules a module loaded again runs on its compiled function, with fresh variables; the function holds no state",
        arguments: [false, true])
    func reusesCompiledModules(_ reuses: Bool) throws {
        let runtime = try runtime(["/app/counted.js": Self.counted, "/app/index.js": Self.loadsTwice])
        runtime.reusesCompiledModules = reuses
        #expect(try runtime.load(entry: "/app/index.js").toJSON() == ["sameFunction": .bool(reuses), "fresh": 1, "marked": false, "frozen": true])
    }

    @Test("a module whose file changed is compiled again even with reusesCompiledModules")
    func changedModuleCompiledAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("corejs-reuse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let module = folder.appendingPathComponent("version.js")
        let runtime = try CommonJSRuntime(configuration: .init(allowedRoots: [folder.path], baseDirectory: folder.path))
        runtime.reusesCompiledModules = true
        var seen: [JSONValue] = []
        for version in [1, 1, 2] {
            try "exports.version = \(version); exports.wrapper = arguments.callee;".write(to: module, atomically: true, encoding: .utf8)
            try runtime.context.evaluate("delete require.cache[require.resolve('./version.js')]", sourceURL: "/test.js")
            let exports = try runtime.require("./version.js")
            try runtime.context.globalObject.setProperty("last\(seen.count)", try exports.property("wrapper"))
            seen.append(try exports.property("version").toJSON())
        }
        #expect(seen == [1, 1, 2])
        #expect(try runtime.context.evaluate("[last0 === last1, last1 === last2]", sourceURL: "/test.js").toJSON() == [true, false])
    }
}
