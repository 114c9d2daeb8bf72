import CoreJS
import Foundation

/// Where `anna` keeps the JavaScript compiled from `.ts` task files between runs, so a run
/// whose files did not change neither compiles nor loads TypeScript's compiler.
enum TypeScriptCache {
    /// Names the folder; an empty value keeps compiled files in memory only.
    static let variable = "ANNA_CACHE_DIR"

    /// `$ANNA_CACHE_DIR/typescript`, else `$XDG_CACHE_HOME/anna/typescript`, else
    /// `~/.cache/anna/typescript`; nil when `ANNA_CACHE_DIR` is set empty.
    static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let named = environment[variable] { return named.isEmpty ? nil : named + "/typescript" }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/anna/typescript" }
        return FileManager.default.homeDirectoryForCurrentUser.path + "/.cache/anna/typescript"
    }

    /// Points the shared compiler at the folder (once per process is enough; again is harmless);
    /// a folder that cannot be written is said once, as a warning.
    static func install() {
        TypeScriptCompiler.shared.cacheFolder = folder()
        TypeScriptCompiler.shared.cacheWriteFailed = { message in
            printError("anna: warning: \(message); make it writable, or set \(variable) to another folder (empty turns the cache off)")
        }
    }
}
