import CoreJS
import Foundation
import Testing

@Suite("JavaScript context: evaluation, calls, errors, time limit, memory")
struct JavaScriptContextTests {
    @Test("a thrown error carries name, message, file, line, column and stack")
    func thrownErrorLocation() throws {
        let context = JavaScriptContext()
        let error = #expect(throws: JavaScriptError.self) {
            try context.evaluate(
                "function inner() {\n  throw new TypeError('wrong type');\n}\ninner();", sourceURL: "/app/boom.js")
        }
        let exception = try #require(error?.exception)
        #expect(exception.name == "TypeError")
        #expect(exception.message == "wrong type")
        #expect(exception.sourceURL == "/app/boom.js")
        #expect(exception.line == 2)
        #expect(exception.column != nil)
        #expect(exception.stack?.contains("inner@/app/boom.js:2") == true)
        #expect(exception.description.hasPrefix("TypeError: wrong type (at /app/boom.js:2:"))
    }

    @Test("a starting line offsets reported lines")
    func startingLine() throws {
        let context = JavaScriptContext()
        let error = #expect(throws: JavaScriptError.self) {
            try context.evaluate("\nnull.property", sourceURL: "/app/offset.js", startingLine: 10)
        }
        #expect(error?.exception?.line == 11)
    }

    @Test("a syntax error names the file and line")
    func syntaxError() throws {
        let context = JavaScriptContext()
        let error = #expect(throws: JavaScriptError.self) {
            try context.evaluate("let fine = 1;\nlet broken = ;\n", sourceURL: "/app/syntax.js")
        }
        #expect(error?.exception?.name == "SyntaxError")
        #expect(error?.exception?.location == "/app/syntax.js:2")
        let functionError = #expect(throws: JavaScriptError.self) {
            try context.compileFunction(parameters: ["a"], body: "\n\nlet broken = ;", sourceURL: "/app/body.js")
        }
        #expect(functionError?.exception?.location == "/app/body.js:3")
    }

    @Test("a thrown non-error value is reported with its text and value")
    func thrownPrimitive() throws {
        let context = JavaScriptContext()
        let error = #expect(throws: JavaScriptError.self) {
            try context.evaluate("throw { reason: 'custom', code: 7 }", sourceURL: "/t.js")
        }
        #expect(error?.exception?.thrownValue == ["reason": "custom", "code": 7])
        let text = #expect(throws: JavaScriptError.self) { try context.evaluate("throw 'plain'", sourceURL: "/t.js") }
        #expect(text?.exception?.message == "plain")
    }

    @Test("a runaway loop is stopped and the context stays usable")
    func executionTimeLimit() throws {
        let context = JavaScriptContext(executionTimeLimit: .milliseconds(200))
        let error = #expect(throws: JavaScriptError.self) {
            try context.evaluate("while (true) {}", sourceURL: "/app/spin.js")
        }
        #expect(error == .executionTimeLimitExceeded(operation: "evaluating /app/spin.js", limitSeconds: 0.2))
        #expect(error?.description == "execution time limit exceeded: evaluating /app/spin.js ran longer than 0.2 s and was stopped")
        #expect(try context.evaluate("6 * 7", sourceURL: "/t.js").toJSON() == 42)

        let spin = try context.evaluate("(function spin() { for (;;) {} })", sourceURL: "/app/fn.js")
        let callError = #expect(throws: JavaScriptError.self) { try spin.call([JSONValue]()) }
        #expect(callError == .executionTimeLimitExceeded(operation: "calling 'spin'", limitSeconds: 0.2))
        let named = #expect(throws: JavaScriptError.self) { try spin.call([JSONValue](), operation: "task 'x'") }
        #expect(named == .executionTimeLimitExceeded(operation: "task 'x'", limitSeconds: 0.2))
        #expect(try context.evaluate("'still alive'", sourceURL: "/t.js").toJSON() == "still alive")
    }

    @Test("the time limit applies per call, not to the context's lifetime")
    func limitIsPerCall() throws {
        let context = JavaScriptContext(executionTimeLimit: .milliseconds(500))
        let busy = try context.evaluate(
            "(function () { const end = Date.now() + 150; while (Date.now() < end) {} return 1 })", sourceURL: "/t.js")
        for _ in 0..<5 { #expect(try busy.call([JSONValue]()).toJSON() == 1) }
    }

    @Test("Swift closures become JavaScript functions; Swift errors become JavaScript errors")
    func nativeFunctions() throws {
        struct Refusal: JavaScriptThrowable {
            var javaScriptName: String { "RefusalError" }
            var javaScriptMessage: String { "refused politely" }
            var javaScriptProperties: [String: JSONValue] { ["code": "E_REFUSED"] }
        }
        let context = JavaScriptContext()
        let add = context.makeFunction(name: "add") { _, arguments in
            let sum = arguments.compactMap { $0.toJSON().numberValue }.reduce(0, +)
            return context.makeValue(.number(sum))
        }
        let refuse = context.makeFunction(name: "refuse") { _, _ in throw Refusal() }
        try context.globalObject.setProperty("add", add)
        try context.globalObject.setProperty("refuse", refuse)
        #expect(try context.evaluate("add(1, 2, 3)", sourceURL: "/t.js").toJSON() == 6)
        #expect(try context.evaluate("add.call(null, 4) + add.apply(null, [5])", sourceURL: "/t.js").toJSON() == 9)
        #expect(try context.evaluate("add.name", sourceURL: "/t.js").toJSON() == "add")
        let caught = try context.evaluate(
            "try { refuse() } catch (e) { ({ name: e.name, message: e.message, code: e.code, isError: e instanceof Error }) }",
            sourceURL: "/t.js")
        #expect(caught.toJSON() == ["name": "RefusalError", "message": "refused politely", "code": "E_REFUSED", "isError": true])
    }

    @Test("calling or constructing a non-function is a type mismatch, not a crash")
    func nonFunction() throws {
        let context = JavaScriptContext()
        let number = context.makeValue(3)
        #expect(throws: JavaScriptError.self) { try number.call([JSONValue]()) }
        #expect(throws: JavaScriptError.self) { try number.construct() }
        #expect(throws: JavaScriptError.self) { try number.property("x") }
    }

    @Test("constructors and methods can be called")
    func constructAndInvoke() throws {
        let context = JavaScriptContext()
        let counter = try context.evaluate(
            "(class Counter { constructor(start) { this.n = start } bump() { return ++this.n } })", sourceURL: "/t.js")
        let instance = try counter.construct([context.makeValue(10)])
        #expect(try instance.invokeMethod("bump").toJSON() == 11)
        #expect(instance.isInstance(of: counter))
    }

    @Test("a context is released when its last owner goes, native functions included")
    func contextReleased() throws {
        weak var released: JavaScriptContext?
        do {
            let context = JavaScriptContext()
            released = context
            try context.globalObject.setProperty(
                "f",
                context.makeFunction(name: "f") { [weak context] _, _ in
                    context?.makeValue(1) ?? context!.undefined
                })
            #expect(try context.evaluate("f() + [1, 2].map(x => ({ x })).length", sourceURL: "/t.js").toJSON() == 3)
        }
        #expect(released == nil)
    }

    @Test("a module runtime releases its context when it goes")
    func runtimeReleasesContext() throws {
        weak var released: JavaScriptContext?
        do {
            let files = InMemoryFileAccess(["/app/index.js": "module.exports = { ok: true }"])
            let runtime = try CommonJSRuntime(configuration: .init(fileAccess: files, console: Console(output: MemoryOutputSink())))
            released = runtime.context
            #expect(try runtime.load(entry: "/app/index.js").toJSON() == ["ok": true])
        }
        #expect(released == nil)
    }

    @Test("one Float64Array carries batch after batch; a short or wrong array is refused")
    func float64ArrayReuse() throws {
        let context = JavaScriptContext()
        let sumOfFirst = try context.evaluate(
            "(function (a, n) { let s = 0; for (let i = 0; i < n; i++) s += a[i]; return [a.length, s] })", sourceURL: "/t.js")
        let array = try context.makeFloat64Array(length: 4)
        try [1.5, 2.5, 3.0].withUnsafeBufferPointer { try array.overwriteFloat64Array(from: $0) }
        #expect(try sumOfFirst.call([array, context.makeValue(3)]).toJSON() == [4, 7])
        try [10.0].withUnsafeBufferPointer { try array.overwriteFloat64Array(from: $0) }
        #expect(try sumOfFirst.call([array, context.makeValue(3)]).toJSON() == [4, 15.5], "only the start is overwritten")
        #expect(throws: JavaScriptError.self) {
            try [Double](repeating: 1, count: 5).withUnsafeBufferPointer { try array.overwriteFloat64Array(from: $0) }
        }
        let plain = try context.evaluate("[0, 0, 0, 0, 0]", sourceURL: "/t.js")
        #expect(throws: JavaScriptError.self) {
            try [1.0].withUnsafeBufferPointer { try plain.overwriteFloat64Array(from: $0) }
        }
    }

    @Test("a Float64Array that views part of its buffer is read and written where it starts")
    func float64ArrayView() throws {
        let context = JavaScriptContext()
        let whole = try context.evaluate("new Float64Array([1, 2, 3, 4, 5])", sourceURL: "/t.js")
        let view = try context.evaluate("(function (a) { return a.subarray(2, 4) })", sourceURL: "/t.js").call([whole])
        #expect(try view.withFloat64Array { Array($0) } == [3, 4])
        try [30.0].withUnsafeBufferPointer { try view.overwriteFloat64Array(from: $0) }
        #expect(try whole.withFloat64Array { Array($0) } == [1, 2, 30, 4, 5])
    }

    @Test("many calls that cross the boundary release every protected value")
    func callsDoNotLeak() throws {
        let context = JavaScriptContext()
        let echo = try context.evaluate("(function (o) { return { id: o.id, tags: o.tags.concat(['x']) } })", sourceURL: "/t.js")
        let add = context.makeFunction(name: "add") { _, arguments in
            context.makeValue(.number(arguments.compactMap { $0.toJSON().numberValue }.reduce(0, +)))
        }
        let callsNative = try context.evaluate(
            "(function (f, n) { let s = 0; for (let i = 0; i < n; i++) s = f(s, 1); return s })", sourceURL: "/t.js")
        let baseline = context.protectedValueCount
        for index in 0..<50_000 {
            let result = try echo.call([JSONValue.object(["id": .number(Double(index)), "tags": ["a", "b"]])]).toJSON()
            precondition(result["id"] == .number(Double(index)))
        }
        #expect(try callsNative.call([add, context.makeValue(50_000)]).toJSON() == 50_000)
        #expect(context.protectedValueCount == baseline, "every wrapper made by a call is released")
        withExtendedLifetime((echo, add, callsNative)) {}
    }

    @Test(
        "utf8Bytes gives String(value) as UTF-8, for texts of every size",
        arguments: [
            "", "42", "plain ascii", "ünïcødé ✓ 日本語 👩‍👩‍👧", String(repeating: "[{\"n\":1,\"s\":\"é\"}],", count: 100_000),
            // ASCII is narrowed from UTF-16 units; one unit past it, anywhere, takes the engine's conversion.
            String(repeating: "[{\"n\":1,\"s\":\"x\"}],", count: 100_001), "\u{7F}", "\u{80}",
            String(repeating: "a", count: 4_099) + "é", "é" + String(repeating: "a", count: 33),
        ])
    func utf8Bytes(_ text: String) throws {
        let context = JavaScriptContext()
        let value = context.makeValue(.string(text))
        #expect(value.utf8Bytes() == Array(text.utf8))
    }

    @Test("utf8Bytes converts non-strings as String(value) does")
    func utf8BytesOfValues() throws {
        let context = JavaScriptContext()
        #expect(try context.evaluate("[1, 'two', null]", sourceURL: "/t.js").utf8Bytes() == Array("1,two,".utf8))
        #expect(try context.evaluate("JSON.stringify({ a: [1, 2] })", sourceURL: "/t.js").utf8Bytes() == Array(#"{"a":[1,2]}"#.utf8))
        #expect(context.undefined.utf8Bytes() == Array("undefined".utf8))
    }

    @Test("collectGarbage collects before it returns: an unreachable object's WeakRef is empty")
    func synchronousCollection() throws {
        let context = JavaScriptContext()
        // One call makes the object; WeakRef targets stay alive until that call has returned.
        try context.evaluate(
            "globalThis.kept = {}; globalThis.refs = [new WeakRef(kept), new WeakRef({ dropped: true })];",
            sourceURL: "/t.js")
        #expect(context.collectGarbage())
        let alive = try context.evaluate("refs.map((ref) => ref.deref() !== undefined)", sourceURL: "/t.js")
        #expect(alive.toJSON() == [true, false])
    }
}
