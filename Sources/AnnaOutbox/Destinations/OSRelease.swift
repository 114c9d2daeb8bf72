import Foundation
import Logging

/// The distribution's name and version from `/etc/os-release` (`NAME`, `VERSION_ID`), which
/// PostHog's SDKs send as `$os_distro` and `$os_version`.
enum OSRelease {
    /// `NAME` and `VERSION_ID`, each empty when the file does not say (or cannot be read: said once, as a warning).
    static let current: (name: String, version: String) = {
        let path = "/etc/os-release"
        // A system without the file sends empty values, as PostHog's SDKs do.
        guard FileManager.default.fileExists(atPath: path) else { return ("", "") }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            Logger(label: "anna.outbox").warning(
                "\(path) cannot be read (\(error)): PostHog events are sent with an empty $os_version and no $os_distro")
            return ("", "")
        }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            var value = line[line.index(after: equals)...]
            if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
                value = value.dropFirst().dropLast()
            }
            fields[String(line[..<equals])] = String(value)
        }
        return (fields["NAME"] ?? "", fields["VERSION_ID"] ?? "")
    }()
}
