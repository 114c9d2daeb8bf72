import CoreJS
import Testing

/// One module source that fails to compile, and the error a user must see.
struct SyntaxCase: CustomTestStringConvertible, Sendable {
    let rule: String
    let source: String
    let message: String
    let line: Int
    var testDescription: String { rule }

    static let all: [SyntaxCase] = [
        .init(
            rule: "an unclosed block ends the file: its last line, no ')' named",
            source: "const a = 1;\nfunction f() {\n  return a;\n\n", message: "Unexpected end of script", line: 3),
        .init(
            rule: "a stray '}' at the end: its line, not the wrapper's", source: "const a = 1;\n}\n",
            message: "Unexpected token '}'", line: 2),
        .init(
            rule: "a stray '}' before more code: its line, no ')' named", source: "const a = 1;\n}\nconst b = 2;\n",
            message: "Unexpected token '}'", line: 2),
        .init(
            rule: "an unclosed template ends the file", source: "const s = `abc\n", message: "Unexpected EOF", line: 1),
        .init(
            rule: "an unclosed comment ends the file", source: "let a;\n/* open\n",
            message: "Multiline comment was not closed properly", line: 2),
        .init(
            rule: "a stray '}' that would reopen the wrapper", source: "a;\nb;\n});(function(){\n",
            message: "Unexpected token '}'", line: 3),
        .init(rule: "an error inside the file keeps its line", source: "let fine = 1;\nlet broken = ;\n", message: "Unexpected token ';'", line: 2),
        .init(
            rule: "import … from", source: "// the helpers\nimport { format } from './format';\nmodule.exports = format;\n",
            message: "ES modules are not supported; use require() (at /app/task/index.js:2)", line: 2),
        .init(
            rule: "export default", source: "const a = 1;\n\n  export default a;\n",
            message: "ES modules are not supported; use require() (at /app/task/index.js:3)", line: 3),
        .init(
            rule: "export function", source: "export function tap() {}\n",
            message: "ES modules are not supported; use require() (at /app/task/index.js:1)", line: 1),
        .init(
            rule: "import in a file with CRLF line ends", source: "// helpers\r\n\r\nimport * as format from './format';\r\n",
            message: "ES modules are not supported; use require() (at /app/task/index.js:3)", line: 3),
        .init(
            rule: "an unclosed block in a file with CRLF line ends", source: "match('tap', () => {\r\n  return 1;\r\n",
            message: "Unexpected end of script", line: 2),
    ]
}

@Suite("Module errors name the user's file and line")
struct ModuleErrorMessageTests {
    func runtime(_ files: [String: String], roots: [String]? = nil) throws -> CommonJSRuntime {
        try CommonJSRuntime(
            configuration: .init(
                allowedRoots: roots, fileAccess: InMemoryFileAccess(files), console: Console(output: MemoryOutputSink()),
                baseDirectory: "/app"))
    }

    @Test(arguments: SyntaxCase.all)
    func syntaxErrors(_ syntax: SyntaxCase) throws {
        let runtime = try runtime(["/app/task/index.js": syntax.source])
        let error = #expect(throws: JavaScriptError.self) { try runtime.load(entry: "/app/task/index.js") }
        let exception = try #require(error?.exception)
        #expect(exception.name == "SyntaxError")
        #expect(exception.message == syntax.message)
        #expect(exception.location == "/app/task/index.js:\(syntax.line)")
        #expect(exception.description.components(separatedBy: "(at /app/task/index.js").count == 2, "the place once")
    }

    @Test("a syntax error in a required file points at that file, with no column of the require call")
    func nestedSyntaxError() throws {
        let runtime = try runtime([
            "/app/index.js": "try { require('./broken') } catch (e) { module.exports = [e.name, e.message, e.sourceURL, e.line, typeof e.column] }",
            "/app/broken.js": "exports.a = 1;\nexports.b = (;\n",
        ])
        let seen = try runtime.load(entry: "/app/index.js").toJSON()
        #expect(seen == ["SyntaxError", "Unexpected token ';'", "/app/broken.js", 2, "undefined"])
    }

    @Test("a missing module names the requiring file and line, with Node's requireStack")
    func missingFromModule() throws {
        let runtime = try runtime([
            "/app/index.js": "// the entry\nmodule.exports = require('./task/helpers');\n",
            "/app/task/helpers.js": "const a = 1;\n\nconst format = require('./format');\n",
        ])
        let error = #expect(throws: JavaScriptError.self) { try runtime.load(entry: "/app/index.js") }
        let exception = try #require(error?.exception)
        #expect(exception.message == "Cannot find module './format' from /app/task/helpers.js:3")
        #expect(exception.location == "/app/task/helpers.js:3:23", "the call's parenthesis, as JavaScriptCore places calls")
        #expect(exception.thrownValue["code"] == "MODULE_NOT_FOUND")
        #expect(exception.thrownValue["requireStack"] == ["/app/task/helpers.js", "/app/index.js"])
    }

    @Test("a request outside the roots names the requiring file and line")
    func refusedFromModule() throws {
        let runtime = try runtime([
            "/app/index.js": "module.exports = require('../secret/key')",
            "/secret/key.js": "module.exports = 'leaked'",
        ])
        let error = #expect(throws: JavaScriptError.self) { try runtime.load(entry: "/app/index.js") }
        let exception = try #require(error?.exception)
        #expect(
            exception.message
                == "Access denied: module '../secret/key' from /app/index.js:1 resolves to '/secret/key', outside the allowed roots (/app)"
        )
        #expect(exception.thrownValue["code"] == "ERR_ACCESS_DENIED")
        #expect(exception.thrownValue["requireStack"] == ["/app/index.js"])
        #expect(exception.location == "/app/index.js:1:25")
    }

    @Test("a request from outside any module names the folder")
    func missingFromHost() throws {
        let runtime = try runtime(["/app/x.js": ""], roots: ["/app"])
        let error = #expect(throws: JavaScriptError.self) { try runtime.require("./gone") }
        #expect(error?.exception?.message == "Cannot find module './gone' from '/app'")
        #expect(error?.exception?.thrownValue["requireStack"] == nil)
    }

    @Test("loading a folder without index.js says so")
    func folderWithoutIndex() throws {
        let runtime = try runtime(["/x/analytics/task/index.js": "", "/x/analytics/README.md": ""])
        #expect(throws: ModuleError.folderWithoutIndex(path: "/x/analytics")) { try runtime.load(entry: "/x/analytics/") }
        #expect(ModuleError.folderWithoutIndex(path: "/x/analytics").description == "'/x/analytics' is a folder without index.js")
        let withIndex = try self.runtime(["/x/analytics/index.js": "module.exports = 7"])
        #expect(try withIndex.load(entry: "/x/analytics").toJSON() == 7)
    }
}
