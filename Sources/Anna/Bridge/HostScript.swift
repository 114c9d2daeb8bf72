import CoreJS
import Foundation

/// The host's own JavaScript (`Bridge/Scripts`, copied into the bundle as the folder
/// `Scripts`, apart from the bundled core): the bridge's JavaScript half and its pieces, the
/// built-ins guard, the realm walk and the engine's reset. Each file is one expression (most
/// evaluate to a factory function); none is a module a task can require.
enum HostScript: String, CaseIterable {
    /// The bridge's orchestration: evaluates to `install(wire, marker, parts)`.
    case moduleBridge = "module-bridge"
    /// The built-ins the host's scripts use, captured: evaluates to an object of them.
    case builtIns = "built-ins"
    // The pieces below evaluate to functions of the captured built-ins that return what
    // each says.

    /// The decoder of batches, with the per-operation loop: `makeDecoder`.
    case operationDecoder = "operation-decoder"
    /// The numbering of results' metas: `makeMetas`.
    case bridgeMetas = "bridge-metas"
    /// The results kept and written as JSON text: `makeResults`.
    case bridgeResults = "bridge-results"
    /// Errors as plain data: `{ plainError, describeThrown, setHidden }`.
    case bridgeErrors = "bridge-errors"
    /// The tracking of promise jobs: `trackPromiseJobs`.
    case promiseJobs = "promise-jobs"
    /// The realm walk shared by the guard and the reset: the walk object.
    case realmWalk = "realm-walk"
    /// A function of the walk and the built-ins that returns `guardBuiltIns()`.
    case builtInsGuard = "built-ins-guard"
    /// A function of the walk and the built-ins that returns `snapshot(cache, core)`.
    case engineReset = "engine-reset"

    /// The pieces `module-bridge.js` is built from, by the name it reads each by (the
    /// built-ins and the guard are added apart).
    static let bridgeParts: [(name: String, script: HostScript)] = [
        ("makeDecoder", .operationDecoder), ("makeMetas", .bridgeMetas), ("makeResults", .bridgeResults),
        ("errors", .bridgeErrors), ("trackPromiseJobs", .promiseJobs),
    ]

    /// The URL stacks name the script by.
    var sourceURL: String { "anna:\(rawValue).js" }

    /// The script's text, read once from the package's resources.
    var source: Result<String, JavaScriptError> {
        Self.sources[self] ?? .failure(.typeMismatch("the host script \(rawValue).js is unknown"))
    }

    /// Evaluates the script in `context`: its value (most often a factory function).
    /// - Throws: ``JavaScriptError`` when the script is missing or throws.
    func evaluate(in context: JavaScriptContext) throws -> JavaScriptValue {
        try context.evaluate(try source.get(), sourceURL: sourceURL)
    }

    /// Evaluates the captured built-ins and the realm walk on them in `context`, before any
    /// module code runs there.
    /// - Throws: ``JavaScriptError`` when a script is missing or fails.
    static func walk(in context: JavaScriptContext) throws -> (builtIns: JavaScriptValue, walk: JavaScriptValue) {
        let builtIns = try HostScript.builtIns.evaluate(in: context)
        return (builtIns, try realmWalk.evaluate(in: context).call([builtIns], operation: "making the realm walk"))
    }

    private static let sources: [HostScript: Result<String, JavaScriptError>] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0, read($0.rawValue)) })

    private static func read(_ name: String) -> Result<String, JavaScriptError> {
        guard let url = Bundle.module.url(forResource: name, withExtension: "js", subdirectory: "Scripts") else {
            return .failure(.typeMismatch("the resource Scripts/\(name).js is missing from the Anna bundle: rebuild the package"))
        }
        do {
            return .success(try String(contentsOf: url, encoding: .utf8))
        } catch {
            return .failure(.typeMismatch("cannot read \(url.path): \(error.localizedDescription); rebuild the package"))
        }
    }
}
