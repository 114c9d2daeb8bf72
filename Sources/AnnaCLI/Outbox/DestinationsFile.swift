import AnnaOutbox
import ArgumentParser
import CoreJS
import Foundation

/// `--destinations FILE.json`: several destinations, each with its own queue and settings.
///
/// ```json
/// [{"name": "segment", "url": "https://api.segment.io/v1/batch", "format": "segment", "apiKey": "…"},
///  {"name": "hook", "url": "https://hooks.example/anna", "format": "webhook",
///   "headers": {"X-Team": "growth"}, "signingSecret": "…", "flushAt": 50, "flushInterval": 10}]
/// ```
///
/// Keys: `name` (unique, required), `url` (required), `format` (default `anna`), `apiKey`,
/// `headers` (object), `signingSecret`, `bearerToken`, `gzip`, `flushAt`, `flushInterval`
/// (seconds), `batchSize`, `batchBytes`, `maximumBackoff` (seconds). Anything else is refused.
enum DestinationsFile {
    static let keys: Set<String> = [
        "name", "url", "format", "apiKey", "headers", "signingSecret", "bearerToken", "gzip", "flushAt", "flushInterval",
        "batchSize", "batchBytes", "maximumBackoff",
    ]

    /// The destinations `path` lists.
    /// - Throws: a usage error (exit 64) naming the file and what is wrong.
    static func load(_ path: String) throws -> [UploadConfiguration] {
        let value: JSONValue
        do {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            value = try bytes.withUnsafeBufferPointer { try JSONValue(parsingUTF8: $0) }
        } catch {
            throw CommandFailure("--destinations \(path): cannot read it as JSON: \(error)", exitCode: ExitCodes.usage)
        }
        guard let list = value.arrayValue ?? value.objectValue?["destinations"]?.arrayValue, !list.isEmpty else {
            throw CommandFailure("--destinations \(path): expected a non-empty array of destinations", exitCode: ExitCodes.usage)
        }
        var names: Set<String> = []
        return try list.enumerated().map { index, element in
            func fail(_ message: String) -> CommandFailure {
                CommandFailure("--destinations \(path): destination \(index + 1): \(message)", exitCode: ExitCodes.usage)
            }
            guard let fields = element.objectValue else { throw fail("not an object") }
            if let unknown = fields.keys.first(where: { !keys.contains($0) }) {
                throw fail("unknown key \"\(unknown)\" (known: \(keys.sorted().joined(separator: ", ")))")
            }
            guard let name = fields["name"]?.stringValue, !name.isEmpty else { throw fail("\"name\" is missing") }
            guard names.insert(name).inserted else { throw fail("the name \"\(name)\" is used twice") }
            guard let url = fields["url"]?.stringValue else { throw fail("\"url\" is missing") }
            let formatName = fields["format"]?.stringValue ?? DeliveryFormat.anna.rawValue
            guard let format = DeliveryFormat(rawValue: formatName) else {
                throw fail("\"format\" \"\(formatName)\" is not one of \(DeliveryFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            var configuration = UploadConfiguration(url: url, format: format)
            configuration.destination = name
            func text(_ key: String) throws -> String? {
                guard let field = fields[key] else { return nil }
                guard let text = field.stringValue else { throw fail("\"\(key)\" must be a string") }
                return text
            }
            func number(_ key: String, minimum: Double) throws -> Double? {
                guard let field = fields[key] else { return nil }
                guard let number = field.numberValue, number >= minimum else { throw fail("\"\(key)\" must be a number ≥ \(minimum)") }
                return number
            }
            configuration.apiKey = try text("apiKey")
            configuration.signingSecret = try text("signingSecret")
            configuration.bearerToken = try text("bearerToken")
            if [.segment, .posthog, .amplitude].contains(format), configuration.apiKey == nil {
                throw fail("format \(format.rawValue) needs \"apiKey\"")
            }
            if let headers = fields["headers"] {
                guard let members = headers.objectValue else { throw fail("\"headers\" must be an object of strings") }
                configuration.headers = try members.map { key, value in
                    guard let value = value.stringValue else { throw fail("header \"\(key)\" must be a string") }
                    return (key, value)
                }
            }
            if let gzip = fields["gzip"] {
                guard let flag = gzip.boolValue else { throw fail("\"gzip\" must be true or false") }
                configuration.gzip = flag
            }
            if let flushAt = try number("flushAt", minimum: 1) { configuration.flushAt = Int(flushAt) }
            if let interval = try number("flushInterval", minimum: 0) { configuration.flushInterval = .milliseconds(Int64(interval * 1000)) }
            if let size = try number("batchSize", minimum: 1) { configuration.maximumBatchCount = Int(size) }
            if let bytes = try number("batchBytes", minimum: 1024) { configuration.maximumBatchBytes = Int(bytes) }
            if let backoff = try number("maximumBackoff", minimum: 0.001) {
                configuration.maximumBackoff = .milliseconds(Int64(backoff * 1000))
            }
            return configuration
        }
    }
}
