import Foundation

/// Turns TypeScript modules into CommonJS JavaScript with TypeScript's own compiler
/// (`typescript.js`), run in a JavaScriptCore context of its own, loaded the first time a
/// `.ts` file is met (about a second) and shared by every runtime of the process.
///
/// Transpile only: types are not checked (`tsc --noEmit` does that), syntax errors are
/// reported at their place in the `.ts` file. The output targets ES2017 with CommonJS
/// modules and a source map, which ``JavaScriptContext`` uses to report run-time places in
/// the `.ts` file. Outputs are kept by content: in memory, and in ``cacheFolder`` when set, so
/// an unchanged file is not compiled again (and the compiler not loaded at all).
///
/// ```swift
/// let output = try TypeScriptCompiler.shared.transpile("let n: number = 1", fileName: "/app/task/index.ts")
/// output.javaScript   // "let n = 1;\n"
/// ```
public final class TypeScriptCompiler: Sendable {
    /// The compiler every runtime uses unless configured otherwise.
    public static let shared = TypeScriptCompiler()

    /// The environment variable naming `typescript.js`, before the usual places.
    public static let compilerPathVariable = "ANNA_TYPESCRIPT"
    /// Where `typescript.js` is looked for: Debian's `node-typescript`, then npm's global folders.
    public static let standardCompilerPaths = [
        "/usr/share/nodejs/typescript/lib/typescript.js",
        "/usr/lib/node_modules/typescript/lib/typescript.js",
        "/usr/local/lib/node_modules/typescript/lib/typescript.js",
    ]
    /// How long loading the compiler or compiling one file may take.
    static let timeLimit = Duration.seconds(60)
    /// Bumped when the options or the output's form change: cached outputs of another value
    /// are compiled again.
    static let outputVersion = 2

    private struct State: ~Copyable {
        var engine: Engine?
        /// Outputs by source text.
        var outputs: [String: TranspiledModule] = [:]
        var compiled = 0
        var cacheFolder: String?
        var cacheWriteFailed: (@Sendable (String) -> Void)?
        /// The first failed write to ``cacheFolder`` (said once).
        var cacheWriteFailure: String?
    }

    /// The loaded compiler: its context and the `transpile` function of the driver script.
    private final class Engine {
        let context: JavaScriptContext
        let transpile: JavaScriptValue
        let version: String

        init(path: String) throws {
            context = JavaScriptContext(executionTimeLimit: TypeScriptCompiler.timeLimit)
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw TypeScriptError.compilerUnreadable(path: path, reason: error.localizedDescription)
            }
            try context.evaluate(text, sourceURL: path)
            version = try context.evaluate("ts.version", sourceURL: "anna:typescript-version.js").toString()
            transpile = try context.evaluate(try TypeScriptCompiler.driver.get(), sourceURL: TypeScriptCompiler.driverURL)
        }
    }

    private let state = Locked(State())
    private let compilerPath: String?

    /// A compiler that loads `typescript.js` from `compilerPath`, or else from
    /// ``compilerPathVariable`` or ``standardCompilerPaths``.
    public init(compilerPath: String? = nil) {
        self.compilerPath = compilerPath
    }

    /// A folder for compiled outputs that outlive the process (the CLI's cache); nil keeps
    /// them in memory only.
    public var cacheFolder: String? {
        get { state.withLock { $0.cacheFolder } }
        set { state.withLock { $0.cacheFolder = newValue } }
    }

    /// Called once, with what to tell the user, the first time an output cannot be written to
    /// ``cacheFolder`` (the output stands; later runs compile the file again), outside the
    /// compiler's lock, so it may call back. Without it, the failure is kept in
    /// ``cacheWriteFailure``.
    public var cacheWriteFailed: (@Sendable (String) -> Void)? {
        get { state.withLock { $0.cacheWriteFailed } }
        set { state.withLock { $0.cacheWriteFailed = newValue } }
    }

    /// The first failure to write to ``cacheFolder``, as said to ``cacheWriteFailed``, or nil.
    public var cacheWriteFailure: String? { state.withLock { $0.cacheWriteFailure } }

    /// Releases the loaded compiler and its context (about 75 MB); a file missing from the
    /// caches loads it again. For an app that compiled its task files and goes on without.
    public func unload() {
        state.withLock { $0.engine = nil }
    }

    /// How many files were compiled (not found in a cache) since the compiler was made.
    public var compiledCount: Int { state.withLock { $0.compiled } }

    /// The `typescript.js` that would be loaded, or nil when none is installed.
    public func locateCompiler() -> String? {
        if let compilerPath { return compilerPath }
        if let named = ProcessInfo.processInfo.environment[Self.compilerPathVariable], !named.isEmpty { return named }
        return Self.standardCompilerPaths.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// The version of the compiler (loading it when not yet loaded).
    /// - Throws: ``TypeScriptError`` when it is not installed or does not load.
    public func version() throws -> String {
        try state.withLock { state throws in try Self.engine(&state, path: locateCompiler()).version }
    }

    /// The JavaScript for the TypeScript `source` of `fileName`, from a cache or compiled now.
    /// - Throws: `JavaScriptError.exception` with a `SyntaxError` at its line and column of
    ///   `fileName` (the first error the compiler found), or ``TypeScriptError`` when the
    ///   compiler is not installed or does not load.
    public func transpile(_ source: String, fileName: String) throws -> TranspiledModule {
        // The first cache write failure is said after the lock is released: a handler may call back.
        let (output, failure) = try state.withLock { state throws -> (TranspiledModule, (@Sendable (String) -> Void, String)?) in
            if let kept = state.outputs[source] { return (kept, nil) }
            let cacheFile = state.cacheFolder.map { Self.cacheFile(in: $0, source: source) }
            if let cacheFile, let kept = Self.readCache(cacheFile, source: source) {
                state.outputs[source] = kept
                return (kept, nil)
            }
            let engine = try Self.engine(&state, path: locateCompiler())
            let output = try Self.compile(source, fileName: fileName, engine: engine)
            state.compiled += 1
            if state.outputs.count >= 512 { state.outputs.removeAll() }
            state.outputs[source] = output
            if let cacheFile, let failure = Self.writeCache(cacheFile, source: source, output: output),
                state.cacheWriteFailure == nil
            {
                let message =
                    "the TypeScript cache \(state.cacheFolder ?? cacheFile) cannot be written (\(failure)): "
                    + ".ts files are compiled again on every run"
                state.cacheWriteFailure = message
                return (output, state.cacheWriteFailed.map { ($0, message) })
            }
            return (output, nil)
        }
        if let (said, message) = failure { said(message) }
        return output
    }

    private static func engine(_ state: inout State, path: String?) throws -> Engine {
        if let engine = state.engine { return engine }
        guard let path else { throw TypeScriptError.compilerMissing(searched: standardCompilerPaths) }
        let engine = try Engine(path: path)
        state.engine = engine
        return engine
    }

    private static func compile(_ source: String, fileName: String, engine: Engine) throws -> TranspiledModule {
        let text = try engine.transpile.call(
            [engine.context.makeValue(.string(source)), engine.context.makeValue(.string(fileName))],
            operation: "compiling \(fileName)"
        ).toString()
        let output = try JSONValue(parsing: text)
        for diagnostic in output["diagnostics"]?.arrayValue ?? [] where diagnostic["error"]?.boolValue == true {
            throw JavaScriptError.exception(syntaxError(diagnostic, fileName: fileName, version: engine.version))
        }
        guard let code = output["code"]?.stringValue, let map = output["map"]?.stringValue else {
            throw TypeScriptError.compilerUnreadable(path: fileName, reason: "the compiler gave no code or no source map")
        }
        do {
            return TranspiledModule(javaScript: code, sourceMapJSON: map, sourceMap: try SourceMap(json: map))
        } catch {
            throw TypeScriptError.compilerUnreadable(path: fileName, reason: error.description)
        }
    }

    /// A compiler diagnostic as the `SyntaxError` a JavaScript file would give, with
    /// TypeScript's code (`TS1005`); syntax newer than the compiler is named as such.
    private static func syntaxError(_ diagnostic: JSONValue, fileName: String, version: String) -> JavaScriptException {
        let code = diagnostic["code"]?.numberValue.map { " (TS\(Int($0)))" } ?? ""
        var message = (diagnostic["message"]?.stringValue ?? "invalid TypeScript") + code
        if let word = diagnostic["word"]?.stringValue, let since = newerSyntax[word] {
            message = "'\(word)' needs TypeScript \(since) or later; the compiler here is TypeScript \(version) (\(message))"
        }
        return JavaScriptException(
            name: "SyntaxError", message: message, sourceURL: fileName,
            line: diagnostic["line"]?.numberValue.map { Int($0) }, column: diagnostic["column"]?.numberValue.map { Int($0) },
            thrownValue: ["name": "SyntaxError", "message": .string(message)])
    }

    /// Keywords of TypeScript releases after the 4.8 that Debian ships, by the release that
    /// brought them: a file using them fails to parse, and the error says why.
    static let newerSyntax = ["satisfies": "4.9", "accessor": "4.9", "using": "5.2"]

    // MARK: - The driver script and the disk cache

    static let driverURL = "anna:typescript-transpile.js"
    static let driver = BundledScript.read("typescript-transpile", sourceURL: driverURL)

    /// `<folder>/<hash>.json`: the hash (FNV-1a, 64 bits) of the output version and the source;
    /// the file holds the source too, compared on reading, so a collision is a miss.
    static func cacheFile(in folder: String, source: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in ("v\(outputVersion)\n" + source).utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return folder + "/" + String(hash, radix: 16) + ".json"
    }

    /// The cached output of `source`, or nil when there is none: no file, or one holding another
    /// source (a hash collision), or a damaged one. The caller then compiles the `.ts` file, which
    /// is the truth, and writes the entry anew: nothing is lost, so nothing is reported.
    static func readCache(_ file: String, source: String) -> TranspiledModule? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        do {
            let value = try JSONValue(parsing: String(decoding: data, as: UTF8.self))
            guard value["source"]?.stringValue == source, let code = value["code"]?.stringValue,
                let map = value["map"]?.stringValue
            else { return nil }
            return TranspiledModule(javaScript: code, sourceMapJSON: map, sourceMap: try SourceMap(json: map))
        } catch {
            return nil  // damaged: compiled again and rewritten
        }
    }

    /// Writes an output to the disk cache (atomically). Returns why it could not, or nil: a
    /// failure only costs a later compile (the output stands), and is said once by the caller.
    static func writeCache(_ file: String, source: String, output: TranspiledModule) -> String? {
        let value: JSONValue = ["source": .string(source), "code": .string(output.javaScript), "map": .string(output.sourceMapJSON)]
        let folder = (file as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(value.jsonText.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
            return nil
        } catch {
            // Foundation's own text often names no cause ("could not be completed").
            return obstacle(to: folder) ?? error.localizedDescription
        }
    }

    /// What keeps `folder` from being written: its nearest existing ancestor (or itself) is a
    /// file, or a folder this process may not write; nil when neither.
    static func obstacle(to folder: String) -> String? {
        var path = folder
        var isFolder: ObjCBool = false
        while !FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            let parent = (path as NSString).deletingLastPathComponent
            if parent == path || parent.isEmpty { return nil }
            path = parent
        }
        if !isFolder.boolValue { return "\(path) is a file, not a folder" }
        return FileManager.default.isWritableFile(atPath: path) ? nil : "\(path) is not writable"
    }
}

/// A TypeScript module compiled to JavaScript.
public struct TranspiledModule: Sendable, Equatable {
    /// The CommonJS JavaScript.
    public var javaScript: String
    /// The source map's JSON text (version 3).
    public var sourceMapJSON: String
    /// The source map's positions.
    public var sourceMap: SourceMap
}

/// Why TypeScript could not be compiled.
public enum TypeScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `typescript.js` was found.
    case compilerMissing(searched: [String])
    /// The compiler did not load, or gave something unusable.
    case compilerUnreadable(path: String, reason: String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case let .compilerMissing(searched):
            return "TypeScript task files need TypeScript's compiler, which is not installed (looked for "
                + searched.joined(separator: ", ")
                + "): install it (Debian: apt-get install node-typescript) or set \(TypeScriptCompiler.compilerPathVariable) to a typescript.js"
        case let .compilerUnreadable(path, reason):
            return "TypeScript's compiler failed on \(path): \(reason)"
        }
    }
}

extension TypeScriptError: JavaScriptThrowable {
    /// `Error`.
    public var javaScriptName: String { "Error" }
    /// Same as ``description``.
    public var javaScriptMessage: String { description }
    /// `code`: `ERR_TYPESCRIPT_MISSING` or `ERR_TYPESCRIPT_FAILED`.
    public var javaScriptProperties: [String: JSONValue] {
        switch self {
        case .compilerMissing: ["code": "ERR_TYPESCRIPT_MISSING"]
        case .compilerUnreadable: ["code": "ERR_TYPESCRIPT_FAILED"]
        }
    }
}
