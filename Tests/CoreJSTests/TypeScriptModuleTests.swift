import AnnaTestSupport
import CoreJS
import Foundation
import Testing

@Suite("TypeScript modules: compiled in the compiler's own context, places in the .ts file")
struct TypeScriptModuleTests {
    func runtime(_ files: [String: String], compiler: TypeScriptCompiler = .shared) throws -> CommonJSRuntime {
        var configuration = CommonJSRuntime.Configuration(fileAccess: InMemoryFileAccess(files), baseDirectory: "/app")
        configuration.typeScript = compiler
        return try CommonJSRuntime(configuration: configuration)
    }

    /// The exception `body` throws.
    func exception(_ body: () throws -> Void) -> JavaScriptException? {
        do {
            try body()
        } catch let JavaScriptError.exception(exception) {
            return exception
        } catch {
            Issue.record("not an exception: \(error)")
        }
        return nil
    }

    @Test("interfaces, enums, generics, optional chaining and imports run as TypeScript means them")
    func runs() throws {
        let runtime = try runtime([
            "/app/index.ts": """
            import { Shape, area } from './shapes';
            enum Kind { Small = 1, Large }
            function largest<T extends Shape>(shapes: T[]): T | undefined {
              return shapes.reduce<T | undefined>((best, shape) => (area(shape) > (best ? area(best) : -1) ? shape : best), undefined);
            }
            const shapes: Shape[] = [{ width: 2, height: 3 }, { width: 4, height: 1, label: { text: 'wide' } }];
            export const result = { kind: Kind.Large, area: area(largest(shapes)!), label: shapes[1].label?.text, none: shapes[0].label?.text ?? 'none' };
            """,
            "/app/shapes.ts": """
            export interface Shape { width: number; height: number; label?: { text: string } }
            export const area = (shape: Shape): number => shape.width * shape.height;
            """,
        ])
        let exports = try runtime.load(entry: "/app/index.ts")
        #expect(try exports.property("result").toJSON() == ["kind": 2, "area": 6, "label": "wide", "none": "none"])
    }

    @Test("a thrown error names the .ts file, line and column, and so does its stack")
    func thrownPlace() throws {
        // The throwing line is the same text in both files: the columns must agree.
        let line = "    throw new Error('boom ' + n);"
        let runtime = try runtime([
            "/app/fail.ts":
                "interface Options { verbose?: boolean }\n\nexport function fail(n: number, options?: Options): void {\n  if (options?.verbose) { console.log(n); }\n\(line)\n}\n",
            "/app/fail.js": "\n\n\nexports.fail = function (n) {\n\(line)\n};\n",
        ])
        let typeScript = exception { try runtime.load(entry: "/app/fail.ts").property("fail").call([runtime.context.makeValue(1)]) }
        let javaScript = exception { try runtime.load(entry: "/app/fail.js").property("fail").call([runtime.context.makeValue(1)]) }
        #expect(typeScript?.sourceURL == "/app/fail.ts")
        #expect(typeScript?.line == 5)
        #expect(typeScript?.column != nil)
        #expect(typeScript?.column == javaScript?.column)
        #expect(typeScript?.stack?.contains("/app/fail.ts:5:") == true)
        #expect(typeScript?.stack?.contains(".ts.js") == false)
    }

    @Test("a syntax error is reported at its .ts line and column, before anything runs")
    func syntaxError() throws {
        let runtime = try runtime(["/app/bad.ts": "globalThis.ran = true;\nconst total: number = 1 +;\n"])
        let error = exception { try runtime.load(entry: "/app/bad.ts") }
        #expect(error?.name == "SyntaxError")
        #expect(error?.sourceURL == "/app/bad.ts")
        #expect(error?.line == 2)
        #expect(error?.column == 26)
        #expect(error?.message.contains("TS1109") == true)
        #expect(try runtime.context.evaluate("globalThis.ran === undefined", sourceURL: "/check.js").toJSON() == true)
    }

    @Test("syntax newer than the compiler is named, with the compiler's version")
    func newerSyntax() throws {
        let runtime = try runtime(["/app/new.ts": "type P = { x: number };\nconst p = { x: 1 } satisfies P;\n"])
        let error = exception { try runtime.load(entry: "/app/new.ts") }
        let version = try TypeScriptCompiler.shared.version()
        #expect(error?.line == 2)
        #expect(error?.message.hasPrefix("'satisfies' needs TypeScript 4.9 or later; the compiler here is TypeScript \(version)") == true)
    }

    @Test("a name with both a .js and a .ts file is refused, not guessed")
    func ambiguous() throws {
        let runtime = try runtime([
            "/app/index.js": "module.exports = require('./helper');", "/app/helper.js": "module.exports = 1;",
            "/app/helper.ts": "export default 2;",
        ])
        let error = exception { try runtime.load(entry: "/app/index.js") }
        #expect(error?.message.contains("'/app/helper' could be /app/helper.js or /app/helper.ts") == true)
        #expect(error?.thrownValue["code"] == "ERR_AMBIGUOUS_MODULE")
    }

    @Test("outputs are kept by content: in memory, and on disk across compilers; an edit compiles again")
    func cache() throws {
        let folder = try TemporaryFolder()
        let first = TypeScriptCompiler()
        first.cacheFolder = folder.path
        let source = "export const n: number = 1;\n"
        let output = try first.transpile(source, fileName: "/app/a.ts")
        _ = try first.transpile(source, fileName: "/app/b.ts")
        #expect(first.compiledCount == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)

        let second = TypeScriptCompiler(compilerPath: "/nonexistent/typescript.js")
        second.cacheFolder = folder.path
        #expect(try second.transpile(source, fileName: "/app/a.ts") == output)
        #expect(second.compiledCount == 0)
        // A changed file is not in the cache, and this compiler cannot load: it says so.
        #expect(throws: TypeScriptError.self) { try second.transpile(source + "export const m = 2;\n", fileName: "/app/a.ts") }
        // A damaged entry is a miss: compiled again and written anew.
        let entry = try FileManager.default.contentsOfDirectory(atPath: folder.path)[0]
        try folder.write(entry, "{\"source\": ")
        let third = TypeScriptCompiler()
        third.cacheFolder = folder.path
        #expect(try third.transpile(source, fileName: "/app/a.ts") == output)
        #expect(third.compiledCount == 1)
        #expect(try folder.read(entry).contains("\"code\""))
        first.unload()
        _ = try first.transpile(source + "export const m = 2;\n", fileName: "/app/a.ts")
        #expect(first.compiledCount == 2, "loaded again after unload()")
    }

    @Test("a cache folder that cannot be written is said once; every output still comes")
    func unwritableCache() throws {
        let folder = try TemporaryFolder()
        try folder.write("file", "not a folder\n")
        let compiler = TypeScriptCompiler()
        compiler.cacheFolder = folder.file("file") + "/typescript"
        final class Said: Sendable { let messages = Locked<[String]>([]) }
        let said = Said()
        compiler.cacheWriteFailed = { message in said.messages.withLock { $0.append(message) } }
        _ = try compiler.transpile("export const n: number = 1;\n", fileName: "/app/a.ts")
        let output = try compiler.transpile("export const m: number = 2;\n", fileName: "/app/b.ts")
        #expect(output.javaScript.contains("exports.m = 2"))
        #expect(compiler.compiledCount == 2)
        let messages = said.messages.withLock { $0 }
        #expect(messages.count == 1, "\(messages)")
        let file = folder.file("file")
        let expected = "the TypeScript cache \(file)/typescript cannot be written (\(file) is a file, not a folder)"
        #expect(messages.first?.hasPrefix(expected) == true, "\(messages)")
        #expect(compiler.cacheWriteFailure == messages.first)
    }

    @Test("source maps: VLQ segments decode to places; lines without segments take the nearest above")
    func sourceMap() throws {
        // Line 1: column 0 -> 0:0, column 4 -> 0:6; line 2 empty; line 3: column 2 -> 2:0.
        let map = try SourceMap(mappings: "AAAA,IAAM;;EAEN")
        #expect(map.originalPosition(line: 1, column: 1)! == (1, 1))
        #expect(map.originalPosition(line: 1, column: 3)! == (1, 3))
        #expect(map.originalPosition(line: 1, column: 5)! == (1, 7))
        #expect(map.originalPosition(line: 1, column: 7)! == (1, 9))
        #expect(map.originalPosition(line: 2, column: 3)! == (1, 7))
        #expect(map.originalPosition(line: 3, column: 1)! == (3, 1))
        #expect(map.originalPosition(line: 1, column: Int.min)! == (1, 1))
        #expect(map.originalPosition(line: Int.max, column: Int.max)! == (3, 1))
        // Damaged numbers (a cache file): wrong places at worst, never a trap.
        #expect(try SourceMap(mappings: "AA////////////DA").originalPosition(line: 1, column: 1) == nil)
        let long = #expect(throws: SourceMapError.self) { try SourceMap(mappings: "gggggggggggggggB") }
        #expect(long?.reason == "a number has more than 64 bits")
        #expect(throws: SourceMapError.self) { try SourceMap(mappings: "AA!A") }
        #expect(throws: SourceMapError.self) { try SourceMap(json: "{}") }
    }
}
