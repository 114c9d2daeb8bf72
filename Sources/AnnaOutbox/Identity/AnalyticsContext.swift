import Anna
import CoreJS
import Foundation
import OrderedCollections

/// The context every result is sent with, under the names Segment's spec gives it (each
/// destination renames them: docs/destinations.md).
public enum AnalyticsContext {
    /// `library`, `os`, `app` (when `app` is given), `locale` and `timezone`, then `extra`
    /// (which may replace any of them).
    /// - Parameters:
    ///   - app: The app's name and version.
    ///   - extra: Context the app adds (e.g. `device`, `screen`, `campaign`).
    public static func make(app: AppInfo?, extra: OrderedDictionary<String, JSONValue> = [:]) -> OrderedDictionary<
        String, JSONValue
    > {
        var context: OrderedDictionary<String, JSONValue> = [
            "library": ["name": .string(AnnaLibrary.name), "version": .string(AnnaLibrary.version)],
            "os": ["name": "Linux", "version": .string(osVersion)],
        ]
        if let app {
            var fields: OrderedDictionary<String, JSONValue> = ["name": .string(app.name), "version": .string(app.version)]
            if let build = app.build { fields["build"] = .string(build) }
            context["app"] = .object(fields)
        }
        context["locale"] = .string(locale)
        context["timezone"] = .string(timezone)
        for (key, value) in extra { context[key] = value }
        return context
    }

    /// The kernel's release (`uname -r`), `unknown` when it cannot be read.
    static let osVersion: String = {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown" }
        return withUnsafeBytes(of: &names.release) { bytes in
            String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }()

    /// The user's locale as a BCP 47 tag (`de-DE`), from `LC_ALL`, `LC_MESSAGES` or `LANG`
    /// (`de_DE.UTF-8`); `en-US` when none names one (`C`, `POSIX`, unset).
    static var locale: String {
        let environment = ProcessInfo.processInfo.environment
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            let tag = value.split(separator: ".").first.map(String.init) ?? value
            if tag == "C" || tag == "POSIX" { break }
            return tag.replacingOccurrences(of: "_", with: "-")
        }
        return "en-US"
    }

    /// The IANA time zone (`Europe/Berlin`), from `TZ` or the system's; `UTC` when unknown.
    static var timezone: String {
        let identifier = TimeZone.current.identifier
        return identifier.isEmpty ? "UTC" : identifier
    }
}

/// The app's name and version, sent in every result's context (`context.app`).
public struct AppInfo: Sendable, Equatable {
    /// The app's name.
    public var name: String
    /// Its version (`1.2.3`).
    public var version: String
    /// Its build number, when it has one.
    public var build: String?

    /// An app named `name` at `version`.
    public init(name: String, version: String, build: String? = nil) {
        self.name = name
        self.version = version
        self.build = build
    }
}
