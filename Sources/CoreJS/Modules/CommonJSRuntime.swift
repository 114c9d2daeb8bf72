/// A tiny Node-like environment in a ``JavaScriptContext``: CommonJS modules, `require`,
/// `console`, `global`, and file access confined to allowed roots.
///
/// ```swift
/// let runtime = try CommonJSRuntime(configuration: .init(searchPaths: ["/opt/anna/js"]))
/// let exports = try runtime.load(entry: "/app/analytics/index.js")
/// ```
///
/// Like its context, a runtime is used from one thread or serial queue.
public final class CommonJSRuntime {
    /// How a runtime finds, reads and prints.
    public struct Configuration: Sendable {
        /// Folders searched for bare requests (`require('anna')`) after `node_modules` folders.
        public var searchPaths: [String]
        /// Folders modules may be read from; `nil` means the search paths plus the folder of
        /// every entry loaded with ``CommonJSRuntime/load(entry:)``.
        public var allowedRoots: [String]?
        /// Where module files come from.
        public var fileAccess: any FileAccess
        /// Where `console` output goes.
        public var console: Console
        /// The folder the global `require` resolves relative requests from.
        public var baseDirectory: String
        /// What compiles `.ts` modules (loaded only when one is required).
        public var typeScript: TypeScriptCompiler = .shared

        /// Creates a configuration; by default files come from disk and `console` prints to
        /// standard output.
        public init(
            searchPaths: [String] = [],
            allowedRoots: [String]? = nil,
            fileAccess: any FileAccess = LocalFileAccess(),
            console: Console = .standard,
            baseDirectory: String = "/"
        ) {
            self.searchPaths = searchPaths
            self.allowedRoots = allowedRoots
            self.fileAccess = fileAccess
            self.console = console
            self.baseDirectory = baseDirectory
        }
    }

    /// The context the modules run in.
    public let context: JavaScriptContext
    /// The configuration the runtime was made with.
    public let configuration: Configuration
    private var resolver: ModuleResolver
    private var makeRequire: JavaScriptValue!
    /// Whether a module required again with the same source gets the function compiled for
    /// it before instead of a new one: each run of the module still has its own `module`,
    /// `exports` and variables, and its code keeps what the JIT compiled. For hosts that
    /// empty the module cache and load the same modules again and again. (A module's
    /// function is frozen, with its prototype, either way, so it holds no state of its own:
    /// sloppy code reaches it as `arguments.callee`.)
    public var reusesCompiledModules = false
    /// The functions compiled per module path, with the source they were compiled from.
    private var compiledModules: [String: (source: String, function: JavaScriptValue)] = [:]
    /// `Object.freeze` as it was before any module ran.
    private var freeze: JavaScriptValue!

    /// Installs `require`, `console`, `global` into `context`.
    /// - Throws: ``JavaScriptError`` if the bootstrap cannot run (e.g. the context is unusable);
    ///   ``ModuleError/unreadable(path:reason:)`` if the bootstrap script is missing from the
    ///   CoreJS resource bundle (a packaging error).
    public init(context: JavaScriptContext = JavaScriptContext(), configuration: Configuration = .init()) throws {
        self.context = context
        self.configuration = configuration
        resolver = ModuleResolver(
            fileAccess: configuration.fileAccess, searchPaths: configuration.searchPaths,
            allowedRoots: configuration.allowedRoots ?? configuration.searchPaths)
        freeze = try context.evaluate("Object.freeze", sourceURL: CommonJSBootstrap.sourceURL)
        let install = try context.evaluate(CommonJSBootstrap.source.get(), sourceURL: CommonJSBootstrap.sourceURL)
        makeRequire = try install.call([makeNativeHelpers()], operation: "installing the module runtime")
        let globalRequire = try makeRequire.call([context.makeValue(.string(configuration.baseDirectory))])
        try context.globalObject.setProperty("require", globalRequire)
    }

    /// The canonical folders modules may currently be read from.
    public var allowedRoots: [String] { resolver.allowedRoots }

    /// Requires `request` as if from a module in `directory` (default: the base directory).
    /// - Returns: the module's `exports`.
    /// - Throws: ``JavaScriptError`` carrying the module error or the module's own exception.
    @discardableResult
    public func require(_ request: String, from directory: String? = nil) throws -> JavaScriptValue {
        let require = try makeRequire.call([context.makeValue(.string(directory ?? configuration.baseDirectory))])
        return try require.call([context.makeValue(.string(request))], operation: "requiring '\(request)'")
    }

    /// Loads the module at the absolute path `entry`. Unless roots were configured, the
    /// entry's folder becomes an allowed root.
    /// - Returns: the module's `exports`.
    /// - Throws: ``ModuleError/folderWithoutIndex(path:)`` when `entry` is a folder with nothing
    ///   to load; ``JavaScriptError`` carrying the module error or the module's own exception.
    @discardableResult
    public func load(entry: String) throws -> JavaScriptValue {
        // Like Node's main module: found by its real path, so a module reached through a
        // symbolic link is checked against the roots where it really is.
        let path = configuration.fileAccess.canonicalPath(ModulePath.normalize(entry))
        let isFolder = configuration.fileAccess.isDirectory(atPath: path)
        if configuration.allowedRoots == nil {
            addAllowedRoot(isFolder ? path : ModulePath.directory(of: path))
        }
        if isFolder {
            do {
                _ = try resolver.resolve(path, from: "/")
            } catch ModuleError.notFound {
                throw ModuleError.folderWithoutIndex(path: path)
            } catch {
                // Any other failure is the require's to report, as for a file.
            }
        }
        return try require(path)
    }

    /// Allows reading modules below `folder` too.
    public func addAllowedRoot(_ folder: String) {
        let canonical = configuration.fileAccess.canonicalPath(ModulePath.normalize(folder))
        if !resolver.allowedRoots.contains(canonical) { resolver.allowedRoots.append(canonical) }
    }

    /// Resolves like `require.resolve` from `directory`.
    public func resolve(_ request: String, from directory: String) throws -> String {
        try resolver.resolve(request, from: directory)
    }

    /// The parameters of every module's function.
    static let moduleParameters = ["exports", "require", "module", "__filename", "__dirname"]

    private func makeNativeHelpers() throws -> JavaScriptValue {
        let helpers = try context.evaluate("({})", sourceURL: CommonJSBootstrap.sourceURL)
        let header = JavaScriptContext.functionHeader(parameters: Self.moduleParameters)
        try helpers.setProperty("firstLineShift", context.makeValue(.number(Double(header.utf16.count))))
        try helpers.setProperty(
            "resolve",
            nativeFunction("resolve") { runtime, arguments in
                let request = arguments.first?.toString() ?? ""
                let directory = arguments.count > 1 ? arguments[1].toString() : runtime.configuration.baseDirectory
                do {
                    return runtime.context.makeValue(.string(try runtime.resolver.resolve(request, from: directory)))
                } catch let error as ModuleError where arguments.count > 2 {
                    // The bootstrap asks again with the requiring `file:line` once a request failed.
                    throw error.required(from: arguments[2].toString())
                }
            })
        try helpers.setProperty(
            "read",
            nativeFunction("read") { runtime, arguments in
                runtime.context.makeValue(.string(try runtime.readModule(arguments.first?.toString() ?? "")))
            })
        try helpers.setProperty(
            "compile",
            nativeFunction("compile") { runtime, arguments in
                let path = arguments.first?.toString() ?? ""
                let source = try runtime.readModule(path)
                if runtime.reusesCompiledModules, let compiled = runtime.compiledModules[path], compiled.source == source {
                    return compiled.function
                }
                let module = try runtime.compiledSource(source, path: path)
                let body = Self.scriptBody(module.javaScript)
                do {
                    let function = try runtime.context.compileFunction(
                        parameters: Self.moduleParameters, body: body, sourceURL: module.sourceURL)
                    _ = try runtime.freeze.call([function])
                    _ = try runtime.freeze.call([try function.property("prototype")])
                    if runtime.reusesCompiledModules { runtime.compiledModules[path] = (source, function) }
                    return function
                } catch let JavaScriptError.exception(exception) where exception.name == "SyntaxError" {
                    // Only when the engine stumbled on the keyword: a real error elsewhere in a
                    // file with an `import` line in a comment or a string keeps its own message.
                    guard exception.message.contains("import") || exception.message.contains("export"),
                        let line = Self.moduleSyntaxLine(in: body)
                    else { throw JavaScriptError.exception(exception) }
                    throw JavaScriptError.exception(
                        JavaScriptException(
                            name: "SyntaxError", message: "ES modules are not supported; use require() (at \(path):\(line))",
                            sourceURL: path, line: line))
                }
            })
        try helpers.setProperty(
            "originalPlace",
            nativeFunction("originalPlace") { runtime, arguments in
                let context = runtime.context
                // Any script may call it: a number that is no line (NaN, 1e300) is no place.
                func integer(_ value: JavaScriptValue) -> Int? {
                    value.toJSON().numberValue.flatMap { $0.isFinite && abs($0) < 1e9 ? Int($0) : nil }
                }
                guard arguments.count >= 3, let line = integer(arguments[1]),
                    let original = context.originalPlace(sourceURL: arguments[0].toString(), line: line, column: integer(arguments[2]))
                else { return context.makeValue(.null) }
                return context.makeValue([
                    "file": .string(original.file), "line": .number(Double(original.line)),
                    "column": original.column.map { .number(Double($0)) } ?? .null,
                ])
            })
        try helpers.setProperty(
            "write",
            nativeFunction("write") { runtime, arguments in
                let level = Int(arguments.first?.toJSON().numberValue ?? 0)
                runtime.configuration.console.write(level: level, line: arguments.count > 1 ? arguments[1].toString() : "")
                return runtime.context.undefined
            })
        return helpers
    }

    /// A native helper that holds the runtime weakly (the context must not keep its owner alive).
    private func nativeFunction(
        _ name: String, _ body: @escaping (CommonJSRuntime, [JavaScriptValue]) throws -> JavaScriptValue
    ) -> JavaScriptValue {
        context.makeFunction(name: name) { [weak self] _, arguments in
            guard let self else { throw ModuleError.unreadable(path: name, reason: "the module runtime is gone") }
            return try body(self, arguments)
        }
    }

    /// The JavaScript a module file runs and the URL it runs under: a `.ts` file compiled by
    /// ``Configuration/typeScript``, run as `<path>.js` with its source map registered, so
    /// errors and stacks name the `.ts` file's lines; any other file as it is.
    private func compiledSource(_ source: String, path: String) throws -> (javaScript: String, sourceURL: String) {
        guard path.hasSuffix(".ts") else { return (source, path) }
        let output = try configuration.typeScript.transpile(source, fileName: path)
        let url = path + ".js"
        context.registerSourceMap(output.sourceMap, generatedURL: url, originalFile: path)
        return (output.javaScript, url)
    }

    private func readModule(_ path: String) throws -> String {
        let canonical = configuration.fileAccess.canonicalPath(path)
        guard resolver.isAllowed(canonical) else {
            throw ModuleError.outsideAllowedRoots(request: path, path: canonical, roots: resolver.allowedRoots)
        }
        do {
            return try configuration.fileAccess.readFile(atPath: canonical)
        } catch {
            throw ModuleError.unreadable(path: path, reason: error.localizedDescription)
        }
    }

    /// The 1-based line of the first `import … from` or `export …` statement in a module
    /// that failed to compile, or nil: CommonJS modules cannot use them, and JavaScriptCore's
    /// own message (`Unexpected keyword 'export'`) does not say why.
    static func moduleSyntaxLine(in source: String) -> Int? {
        var number = 0
        // By scalars, so that "\r\n" (one Character) ends a line too.
        for line in source.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let text = String(line.drop { $0 == " " || $0 == "\t" })
            for keyword in ["import", "export"] where text.hasPrefix(keyword) {
                // `import(` and `import.meta` are expressions; `important = 1` is a name.
                guard let next = text.unicodeScalars.dropFirst(keyword.count).first else { continue }
                if next == " " || next == "\t" || next == "{" || next == "*" || next == "'" || next == "\"" {
                    return number
                }
            }
        }
        return nil
    }

    /// Drops a byte-order mark and turns a `#!` line into a comment (keeping line numbers).
    static func scriptBody(_ source: String) -> String {
        var body = source.hasPrefix("\u{FEFF}") ? String(source.dropFirst()) : source
        if body.hasPrefix("#!") { body = "//" + body.dropFirst(2) }
        return body
    }
}
