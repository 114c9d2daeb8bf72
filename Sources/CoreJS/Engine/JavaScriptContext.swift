// JavaScriptCore's constructors return nil only when they cannot allocate, which is fatal here
// as Swift's own allocations are: their results are unwrapped with `!`.
// swift-format-ignore-file: NeverForceUnwrap

internal import CJavaScriptCore

/// One JavaScriptCore global context with its own context group and execution time limit.
///
/// A context is not thread-safe: create it and use it (and every ``JavaScriptValue`` it makes)
/// on one thread or serial queue. It is released when the last reference to it, including the
/// references values keep, goes away.
///
/// ```swift
/// let context = JavaScriptContext(executionTimeLimit: .seconds(2))
/// let sum = try context.evaluate("1 + 2", sourceURL: "/inline.js").toJSON()   // .number(3)
/// ```
public final class JavaScriptContext {
    let contextRef: JSGlobalContextRef
    let groupRef: JSContextGroupRef
    let watchdog: Watchdog
    private let nativeFunctionClass: JSClassRef
    private(set) var errorConstructor: JSObjectRef?
    /// By source URL, how far ``compileFunction(parameters:body:sourceURL:startingLine:)``'s
    /// header shifts the columns of the body's first line (line 1 only).
    private(set) var firstLineShifts: [String: Int] = [:]
    /// By source URL of code compiled from another language (TypeScript), the file it came
    /// from and its source map: see ``registerSourceMap(_:generatedURL:originalFile:)``.
    var sourceMaps: [String: (file: String, map: SourceMap)] = [:]

    /// How many ``JavaScriptValue`` wrappers of this context exist, each holding one
    /// protection from garbage collection: for leak checks in tests and benchmarks.
    public internal(set) var protectedValueCount = 0

    /// The CPU time one operation may run before it is stopped: an evaluation or call from
    /// Swift, or each operation a script marks in ``operationMarker``.
    public let executionTimeLimit: Duration
    /// Bytes the heap may hold while a script runs before it is stopped (`nil`: no limit).
    public let memoryLimit: Int?
    /// A `Float64Array` of one number. A script that runs many operations in one call writes
    /// a new number to its element 0 as it starts each one: the time limit then applies to
    /// each operation, not to the call.
    public var operationMarker: JavaScriptValue? {
        markerRef.map { JavaScriptValue($0, in: self) }
    }
    /// When ``checkMemory(after:)`` last read the heap.
    private var lastMemoryCheck: ContinuousClock.Instant?
    private static let memoryCheckInterval = Duration.milliseconds(100)
    /// See ``takeStoppedPromiseJob()``.
    var stoppedPromiseJob: JavaScriptError?
    /// Kept protected, not as a ``JavaScriptValue``: a value holds its context.
    private var markerRef: JSObjectRef?

    /// Creates a context.
    /// - Parameters:
    ///   - executionTimeLimit: the CPU time one operation may take before it is stopped
    ///     with ``JavaScriptError/executionTimeLimitExceeded(operation:limitSeconds:)``.
    ///   - memoryLimit: bytes the heap may hold; a script past it is stopped with
    ///     ``JavaScriptError/memoryLimitExceeded(operation:limitBytes:heapBytes:)`` (checked
    ///     every 50 ms of CPU time a script runs, and by ``checkMemory(after:)`` between calls).
    public init(executionTimeLimit: Duration = .seconds(2), memoryLimit: Int? = nil) {
        self.executionTimeLimit = executionTimeLimit
        self.memoryLimit = memoryLimit
        watchdog = Watchdog(limit: executionTimeLimit.inSeconds, memoryLimit: memoryLimit)
        _ = Watchdog.canLetScriptsGoOn  // the engine's options, before its first context
        EngineTuning.noteEngineStart()
        groupRef = JSContextGroupCreate()
        contextRef = JSGlobalContextCreateInGroup(groupRef, nil)
        var definition = kJSClassDefinitionEmpty
        definition.className = UnsafeRawPointer(nativeFunctionClassName.utf8Start).assumingMemoryBound(to: CChar.self)
        definition.callAsFunction = nativeFunctionCall
        definition.finalize = nativeFunctionFinalize
        nativeFunctionClass = JSClassCreate(&definition)
        watchdog.arm(groupRef)
        if let global = JSContextGetGlobalObject(contextRef), let constructor = propertyValue(contextRef, global, "Error"),
            JSValueIsObject(contextRef, constructor)
        {
            JSValueProtect(contextRef, constructor)
            errorConstructor = JSValueToObject(contextRef, constructor, nil)
        }
        if let marker = JSObjectMakeTypedArray(contextRef, kJSTypedArrayTypeFloat64Array, 1, nil) {
            JSValueProtect(contextRef, marker)
            markerRef = marker
            watchdog.marker = JSObjectGetTypedArrayBytesPtr(contextRef, marker, nil)?.assumingMemoryBound(to: Double.self)
        }
    }

    /// Checks the heap against ``memoryLimit`` between calls, at most every 100 ms, and only
    /// when the process holds more than the limit (the heap's statistics walk it); past the
    /// limit, a full collection runs first.
    /// - Throws: ``JavaScriptError/memoryLimitExceeded(operation:limitBytes:heapBytes:)`` when
    ///   the heap still holds more after it; `operation` names what ran before.
    public func checkMemory(after operation: @autoclosure () -> String) throws {
        guard let memoryLimit else { return }
        let now = ContinuousClock.now
        if let lastMemoryCheck, now - lastMemoryCheck < Self.memoryCheckInterval { return }
        lastMemoryCheck = now
        guard watchdog.heapBytes(contextRef, past: memoryLimit) != nil else { return }
        collectGarbage()
        guard let after = watchdog.heapBytes(contextRef, past: memoryLimit) else { return }
        throw JavaScriptError.memoryLimitExceeded(operation: operation(), limitBytes: memoryLimit, heapBytes: after)
    }

    deinit {
        if let errorConstructor { JSValueUnprotect(contextRef, errorConstructor) }
        if let markerRef { JSValueUnprotect(contextRef, markerRef) }
        JSContextGroupClearExecutionTimeLimit(groupRef)
        JSGlobalContextRelease(contextRef)
        JSClassRelease(nativeFunctionClass)
        JSContextGroupRelease(groupRef)
    }

    /// The global object (`globalThis`).
    public var globalObject: JavaScriptValue {
        JavaScriptValue(JSContextGetGlobalObject(contextRef), in: self)
    }

    /// JavaScript's `undefined`.
    public var undefined: JavaScriptValue {
        JavaScriptValue(JSValueMakeUndefined(contextRef), in: self)
    }

    /// Evaluates a script as a program, attributing it to `sourceURL` from `startingLine` on.
    ///
    /// - Returns: the completion value of the script.
    /// - Throws: ``JavaScriptError`` when the script throws, has a syntax error (reported with
    ///   its file and line) or runs past the time limit.
    @discardableResult
    public func evaluate(_ script: String, sourceURL: String, startingLine: Int = 1) throws -> JavaScriptValue {
        let result = try withJSString(script) { source in
            try withJSString(sourceURL) { url in
                try trying("evaluating \(sourceURL)") {
                    JSEvaluateScript(contextRef, source, nil, url, Int32(clamping: startingLine), $0)
                }
            }
        }
        return JavaScriptValue(result ?? JSValueMakeUndefined(contextRef), in: self)
    }

    /// Checks a script for syntax errors without running it.
    /// - Throws: ``JavaScriptError/exception(_:)`` with the `SyntaxError`, its file and line.
    public func checkSyntax(_ script: String, sourceURL: String, startingLine: Int = 1) throws {
        _ = try withJSString(script) { source in
            try withJSString(sourceURL) { url in
                try trying("checking \(sourceURL)") {
                    JSCheckScriptSyntax(contextRef, source, url, Int32(clamping: startingLine), $0)
                }
            }
        }
    }

    /// Compiles `body` as a function with the given parameter names, attributed to `sourceURL`
    /// so that stack traces and syntax errors point at the right file and line.
    ///
    /// The function header is put on the body's first line (as Node does): lines are exact,
    /// columns on the first line are shifted by the header's length. (`JSObjectMakeFunction`
    /// numbers the body from `startingLine + 2` and cannot go lower, so it only checks first
    /// that the body is a function body on its own and cannot close the header early.)
    public func compileFunction(
        parameters: [String], body: String, sourceURL: String, startingLine: Int = 1
    ) throws -> JavaScriptValue {
        let source = Self.functionHeader(parameters: parameters) + body + "\n})"
        // Nothing runs before the body passes on its own (it fails if it would close the
        // header early). When it fails, the error is located in the body's own lines.
        do {
            try checkFunctionBody(parameters: parameters, body: body, sourceURL: sourceURL, startingLine: startingLine)
        } catch {
            throw syntaxError(of: body, wrapped: source, bodyError: error, sourceURL: sourceURL, startingLine: startingLine)
        }
        let function = try evaluate(source, sourceURL: sourceURL, startingLine: startingLine)
        if startingLine == 1 { firstLineShifts[sourceURL] = Self.functionHeader(parameters: parameters).utf16.count }
        guard function.isFunction else {
            throw JavaScriptError.typeMismatch("compiling \(sourceURL) gave no function")
        }
        return function
    }

    /// What ``compileFunction(parameters:body:sourceURL:startingLine:)`` puts before the body
    /// on its first line: columns on that line are shifted by its length.
    public static func functionHeader(parameters: [String]) -> String {
        "(function (\(parameters.joined(separator: ", "))) {"
    }

    /// The syntax error of a body that failed on its own (`bodyError`), located inside the
    /// body's lines. The wrapped source is checked first: most errors are reported there with
    /// their exact line. An error the wrapper caused (an unclosed block reported on the
    /// wrapper's closing `})`, or a stray `}` that closed the header early) is reported where
    /// the body fails when read as a script, at most at its last line, and never names a `)`
    /// or `}` the file does not have.
    private func syntaxError(
        of body: String, wrapped source: String, bodyError: any Error, sourceURL: String, startingLine: Int
    ) -> any Error {
        let lastLine = startingLine - 1 + Self.lastContentLine(of: body)
        var message: String
        do {
            try checkSyntax(source, sourceURL: sourceURL, startingLine: startingLine)
            // The wrapped source passes: the body closes the header and reopens a function.
            message = "Unexpected token '}'"
        } catch let JavaScriptError.exception(wrapped) where wrapped.name == "SyntaxError" {
            let wrapperClosed = wrapped.message.contains("Expected ')' to end a compound expression")
            guard wrapperClosed || (wrapped.line ?? 0) > lastLine else {
                // The engine knows no column of a syntax error; what it gives is the caller's.
                var located = wrapped
                located.column = nil
                return JavaScriptError.exception(located)
            }
            message = wrapperClosed ? "Unexpected token '}'" : "Unexpected end of script"
        } catch {
            return error
        }
        var line = lastLine
        do {
            try checkSyntax(body, sourceURL: sourceURL, startingLine: startingLine)
        } catch let JavaScriptError.exception(script) where script.name == "SyntaxError" {
            // As a script the body fails at a stray `}` ("Parser error") or at its end, unless
            // it uses `return` at the top level (then the line stays unknown: its last line).
            if !script.message.hasPrefix("Return statements") {
                if let scriptLine = script.line { line = min(scriptLine, lastLine) }
                if script.message != "Parser error" { message = script.message }
            }
        } catch {
            return bodyError
        }
        return JavaScriptError.exception(
            JavaScriptException(
                name: "SyntaxError", message: message, sourceURL: sourceURL, line: line,
                thrownValue: ["name": "SyntaxError", "message": .string(message)]))
    }

    /// The 1-based number of the last line of `text` with something other than white space
    /// (1 for a blank text).
    static func lastContentLine(of text: String) -> Int {
        var line = 1
        var last = 1
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\n"): line += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: last = line
            }
        }
        return last
    }

    /// Fails when `body` is not a function body by itself (e.g. it closes the header with `})`).
    private func checkFunctionBody(parameters: [String], body: String, sourceURL: String, startingLine: Int) throws {
        let names = parameters.map(makeJSString)
        defer { names.forEach(JSStringRelease) }
        _ = try withJSString(body) { jsBody in
            try withJSString(sourceURL) { url in
                try names.map(Optional.some).withUnsafeBufferPointer { buffer in
                    try trying("checking \(sourceURL)") {
                        JSObjectMakeFunction(
                            contextRef, nil, UInt32(buffer.count), buffer.baseAddress, jsBody, url, Int32(clamping: startingLine), $0)
                    }
                }
            }
        }
    }

    /// Makes a JavaScript function that runs a Swift closure.
    ///
    /// The closure gets `this` and the arguments; what it throws is thrown into JavaScript
    /// (see ``JavaScriptThrowable``). The function keeps the closure alive until it is
    /// garbage-collected, so the closure must not strongly capture this context.
    public func makeFunction(
        name: String,
        _ body: @escaping (_ this: JavaScriptValue, _ arguments: [JavaScriptValue]) throws -> JavaScriptValue
    ) -> JavaScriptValue {
        let box = NativeFunction(context: self, body: body)
        let object = JSObjectMake(contextRef, nativeFunctionClass, Unmanaged.passRetained(box).toOpaque())!
        let function = JavaScriptValue(object, in: self)
        withJSString("name") { key in
            withJSString(name) { value in
                JSObjectSetProperty(
                    contextRef, object, key, JSValueMakeString(contextRef, value),
                    JSPropertyAttributes(kJSPropertyAttributeReadOnly | kJSPropertyAttributeDontEnum), nil)
            }
        }
        // A JSClass object is not a real Function: give it Function.prototype so `.call`/`.bind` work.
        if let functionPrototype = try? globalObject.property("Function").property("prototype") {
            JSObjectSetPrototype(contextRef, object, functionPrototype.ref)
        }
        return function
    }

    /// Converts JSON-like data into a new JavaScript value.
    public func makeValue(_ value: JSONValue) -> JavaScriptValue {
        JavaScriptValue(makeRef(value), in: self)
    }

    /// Runs a full garbage collection before returning. Returns false where the library
    /// can only ask for one (`JSGarbageCollect`, which waits for a run loop's timer).
    @discardableResult
    public func collectGarbage() -> Bool {
        anna_collect_garbage_now(contextRef)
    }

    // MARK: - Internals shared by the wrapper types (errors: JavaScriptContext+Errors.swift)

    /// `String(value)` in JavaScript, without letting a throwing `toString` escape.
    func describe(_ value: JSValueRef) -> String {
        guard let string = JSValueToStringCopy(contextRef, value, nil) else { return "<unprintable>" }
        defer { JSStringRelease(string) }
        return String(jsString: string)
    }
}

private let nativeFunctionClassName: StaticString = "NativeFunction"
