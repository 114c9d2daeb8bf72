import CoreJS
import Foundation

/// How an analytics module is found and loaded: the one recipe for engines and for tools that
/// load a module without running it (`anna check`).
package enum ModuleEntry {
    /// The folder a module is confined to: the module itself when it is a folder, else the
    /// folder of its file.
    package static func folder(of modulePath: String, fileAccess: any FileAccess) -> String {
        fileAccess.isDirectory(atPath: modulePath) ? modulePath : ModulePath.directory(of: modulePath)
    }

    /// Loads the module at `modulePath` in `runtime` and returns the constructor it exports.
    /// - Throws: ``AnalyticsError/moduleLoadFailed(module:_:)`` when it cannot be loaded (a
    ///   syntax error, a missing file, a folder without `index.js`), or
    ///   ``AnalyticsError/moduleNotConstructor(module:found:)``.
    package static func loadConstructor(at modulePath: String, in runtime: CommonJSRuntime) throws -> JavaScriptValue {
        let constructor: JavaScriptValue
        do {
            constructor = try runtime.load(entry: modulePath)
        } catch let error as JavaScriptError {
            throw AnalyticsError.moduleLoadFailed(module: modulePath, error)
        } catch let error as any JavaScriptThrowable {  // the entry itself cannot be found
            throw AnalyticsError.moduleLoadFailed(module: modulePath, .exception(JavaScriptException(error)))
        }
        guard constructor.isFunction else {
            throw AnalyticsError.moduleNotConstructor(module: modulePath, found: constructor.toString())
        }
        return constructor
    }
}
