import CoreJS
import Testing

/// One resolution rule: `request` required from `directory` must give `expected`.
struct ResolutionCase: CustomTestStringConvertible, Sendable {
    let rule: String
    let request: String
    let directory: String
    let expected: String
    var testDescription: String { "\(rule): '\(request)' from \(directory)" }

    static let files = InMemoryFileAccess([
        "/app/main.js": "",
        "/app/exact": "",
        "/app/exact.js": "",
        "/app/plain.js": "",
        "/app/data.json": "{}",
        "/app/both.js": "",
        "/app/both.json": "",
        "/app/lib/util.js": "",
        "/app/lib/deep/leaf.js": "",
        "/app/withmain/package.json": #"{ "main": "./src/entry" }"#,
        "/app/withmain/src/entry.js": "",
        "/app/withmain/index.js": "",
        "/app/maindir/package.json": #"{ "main": "lib" }"#,
        "/app/maindir/lib/index.js": "",
        "/app/nomain/package.json": #"{ "name": "nomain" }"#,
        "/app/nomain/index.js": "",
        "/app/brokenmain/package.json": #"{ "main": "missing.js" }"#,
        "/app/brokenmain/index.js": "",
        "/app/jsonindex/index.json": "[]",
        "/app/node_modules/pkg/index.js": "",
        "/app/lib/node_modules/pkg/index.js": "",
        "/app/node_modules/only-top.js": "",
        "/app/node_modules/scoped/sub/file.js": "",
        "/node_modules/rootpkg/index.js": "",
        "/search/anna/package.json": #"{ "main": "core.js" }"#,
        "/search/anna/core.js": "",
        "/search/helper.js": "",
    ])

    static let all: [ResolutionCase] = [
        .init(rule: "exact file wins over .js", request: "./exact", directory: "/app", expected: "/app/exact"),
        .init(rule: ".js added", request: "./plain", directory: "/app", expected: "/app/plain.js"),
        .init(rule: ".json added", request: "./data", directory: "/app", expected: "/app/data.json"),
        .init(rule: ".js before .json", request: "./both", directory: "/app", expected: "/app/both.js"),
        .init(rule: "relative into a folder", request: "./lib/util", directory: "/app", expected: "/app/lib/util.js"),
        .init(rule: "parent folder", request: "../main", directory: "/app/lib", expected: "/app/main.js"),
        .init(rule: "parent of parent", request: "../../plain.js", directory: "/app/lib/deep", expected: "/app/plain.js"),
        .init(rule: "absolute path", request: "/app/lib/deep/leaf", directory: "/search", expected: "/app/lib/deep/leaf.js"),
        .init(rule: "package.json main (file)", request: "./withmain", directory: "/app", expected: "/app/withmain/src/entry.js"),
        .init(rule: "package.json main (folder index)", request: "./maindir", directory: "/app", expected: "/app/maindir/lib/index.js"),
        .init(rule: "package.json without main: index.js", request: "./nomain", directory: "/app", expected: "/app/nomain/index.js"),
        .init(rule: "package.json main missing: index.js", request: "./brokenmain", directory: "/app", expected: "/app/brokenmain/index.js"),
        .init(rule: "folder index.json", request: "./jsonindex", directory: "/app", expected: "/app/jsonindex/index.json"),
        .init(rule: "'.' is the folder's index", request: "..", directory: "/app/nomain/x", expected: "/app/nomain/index.js"),
        .init(rule: "nearest node_modules", request: "pkg", directory: "/app/lib/deep", expected: "/app/lib/node_modules/pkg/index.js"),
        .init(rule: "node_modules further up", request: "pkg", directory: "/app", expected: "/app/node_modules/pkg/index.js"),
        .init(rule: "node_modules file", request: "only-top", directory: "/app/lib", expected: "/app/node_modules/only-top.js"),
        .init(rule: "node_modules sub path", request: "scoped/sub/file", directory: "/app/lib", expected: "/app/node_modules/scoped/sub/file.js"),
        .init(rule: "root node_modules", request: "rootpkg", directory: "/app/lib", expected: "/node_modules/rootpkg/index.js"),
        .init(rule: "search path package", request: "anna", directory: "/app/lib", expected: "/search/anna/core.js"),
        .init(rule: "search path file", request: "helper", directory: "/app", expected: "/search/helper.js"),
    ]
}

@Suite("Module resolution (Node's rules)")
struct ModuleResolverTests {
    let resolver = ModuleResolver(
        fileAccess: ResolutionCase.files, searchPaths: ["/search"], allowedRoots: ["/app", "/search", "/node_modules"])

    @Test(arguments: ResolutionCase.all)
    func resolves(_ resolution: ResolutionCase) throws {
        #expect(try resolver.resolve(resolution.request, from: resolution.directory) == resolution.expected)
    }

    @Test("a missing module names the request and the folder")
    func missing() {
        #expect(throws: ModuleError.notFound(request: "./nothing", directory: "/app/lib")) {
            try resolver.resolve("./nothing", from: "/app/lib")
        }
        #expect(throws: ModuleError.notFound(request: "no-such-package", directory: "/app")) {
            try resolver.resolve("no-such-package", from: "/app")
        }
        #expect(ModuleError.notFound(request: "x", directory: "/dir").description == "Cannot find module 'x' from '/dir'")
    }

    @Test("a relative request leaving the allowed roots is refused, not probed")
    func refusesTraversal() {
        let confined = ModuleResolver(fileAccess: ResolutionCase.files, searchPaths: [], allowedRoots: ["/app/lib"])
        #expect(throws: ModuleError.outsideAllowedRoots(request: "../main", path: "/app/main", roots: ["/app/lib"])) {
            try confined.resolve("../main", from: "/app/lib")
        }
        #expect(throws: ModuleError.outsideAllowedRoots(request: "/app/plain", path: "/app/plain", roots: ["/app/lib"])) {
            try confined.resolve("/app/plain", from: "/app/lib")
        }
        // Bare names are not looked up in node_modules folders outside the roots.
        #expect(throws: ModuleError.notFound(request: "pkg", directory: "/app/lib/deep")) {
            try ModuleResolver(fileAccess: ResolutionCase.files, searchPaths: [], allowedRoots: ["/app/lib/deep"])
                .resolve("pkg", from: "/app/lib/deep")
        }
    }

    @Test("a package.json that is not JSON is reported with its path")
    func brokenManifest() {
        let files = InMemoryFileAccess(["/app/bad/package.json": "{ main: nope", "/app/bad/index.js": ""])
        let resolver = ModuleResolver(fileAccess: files, searchPaths: [], allowedRoots: ["/app"])
        #expect {
            try resolver.resolve("./bad", from: "/app")
        } throws: { error in
            guard case let ModuleError.unreadable(path, _) = error else { return false }
            return path == "/app/bad/package.json"
        }
    }

    @Test("paths normalize lexically")
    func paths() {
        #expect(ModulePath.normalize("/a/./b/../c//d/") == "/a/c/d")
        #expect(ModulePath.normalize("/../../x") == "/x")
        #expect(ModulePath.join("/a/b", "../c") == "/a/c")
        #expect(ModulePath.join("/a/b", "/abs") == "/abs")
        #expect(ModulePath.directory(of: "/a/b.js") == "/a")
        #expect(ModulePath.directory(of: "/a") == "/")
        #expect(ModulePath.isInside("/ab/c", root: "/a") == false)
        #expect(ModulePath.isInside("/a/c", root: "/a"))
    }
}
