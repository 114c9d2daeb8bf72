import Foundation

/// The JavaScript half of the module runtime: the module cache, `require` and `console`.
///
/// The script is the resource `commonjs-bootstrap.js` beside this file. It is evaluated once
/// per runtime, as ``sourceURL`` so that stack traces name it, and returns a function taking
/// the native helpers (`resolve`, `read`, `compile`, `write`) and returning
/// `makeRequire(directory)`. The Swift half (``ModuleResolver``, file access, compilation)
/// stays on the native side.
enum CommonJSBootstrap {
    /// The name stack traces and syntax errors give the script.
    static let sourceURL = "anna:commonjs-bootstrap.js"

    /// The script's text, read once from the CoreJS resource bundle. A failure is a packaging
    /// error, reported by ``CommonJSRuntime/init(context:configuration:)`` when it calls `get()`.
    static let source = BundledScript.read("commonjs-bootstrap", sourceURL: sourceURL)
}

/// A script shipped in the CoreJS resource bundle, read once by whoever needs it.
enum BundledScript {
    /// The text of `<name>.js`; a failure (a packaging error) is reported when the caller calls `get()`.
    static func read(_ name: String, sourceURL: String) -> Result<String, ModuleError> {
        guard let url = Bundle.module.url(forResource: name, withExtension: "js") else {
            return .failure(
                .unreadable(path: sourceURL, reason: "\(name).js is missing from the CoreJS resource bundle (a packaging error)"))
        }
        do {
            return .success(try String(contentsOf: url, encoding: .utf8))
        } catch {
            return .failure(.unreadable(path: url.path, reason: error.localizedDescription))
        }
    }
}
