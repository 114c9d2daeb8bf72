import CoreJS
import Foundation

/// What happened to one session, as the journal, the summary and `--summary-json` say it.
struct SessionRecord: Sendable, Equatable {
    enum Status: String, Sendable {
        /// Replayed to the end; its output is complete.
        case done
        /// Stopped and skipped (``SessionRecord/reason`` says why); it has no output.
        case failed
        /// Not replayed: done in an earlier run (`--resume`).
        case skipped
    }

    var session: String
    var path: String
    var status: Status
    /// Why it failed or was skipped.
    var reason: String?
    /// Lines read, results written, core errors counted.
    var lines = 0
    var results = 0
    var errors = 0
    /// Bytes of its output file (`--out`), for `--resume` to tell a complete output.
    var outputBytes: Int?
    var seconds = 0.0
    /// A failure recorded by an earlier run and not replayed again (`--resume` without
    /// `--retry-failed`); not part of the journal line.
    var earlierRun = false

    /// The journal line: one JSON object.
    var json: JSONValue {
        var fields: [(String, JSONValue)] = [("session", .string(session)), ("path", .string(path)), ("status", .string(status.rawValue))]
        if let reason { fields.append(("reason", .string(reason))) }
        fields += [("lines", .number(Double(lines))), ("results", .number(Double(results))), ("errors", .number(Double(errors)))]
        if let outputBytes { fields.append(("outputBytes", .number(Double(outputBytes)))) }
        fields.append(("seconds", .number((seconds * 1000).rounded() / 1000)))
        return .object(.init(uniqueKeysWithValues: fields))
    }

    /// Reads a journal line.
    /// - Throws: ``NotARecord`` saying which field is missing or wrong (a string where a
    ///   number belongs, a count that is negative, fractional or beyond 2^53, …).
    init(json: JSONValue) throws(NotARecord) {
        guard json.objectValue != nil else { throw NotARecord("not a JSON object") }
        guard let session = json["session"]?.stringValue else { throw NotARecord("no string field 'session'") }
        guard let path = json["path"]?.stringValue else { throw NotARecord("no string field 'path'") }
        guard let status = json["status"]?.stringValue.flatMap(Status.init(rawValue:)) else {
            throw NotARecord("no field 'status' of done, failed or skipped")
        }
        let reason: String?
        switch json["reason"] {
        case nil, .null?: reason = nil
        case let .string(text)?: reason = text
        case _?: throw NotARecord("field 'reason' is not a string")
        }
        self.init(session: session, path: path, status: status, reason: reason)
        lines = try Self.count("lines", in: json) ?? 0
        results = try Self.count("results", in: json) ?? 0
        errors = try Self.count("errors", in: json) ?? 0
        outputBytes = try Self.count("outputBytes", in: json)
        if let value = json["seconds"] {
            guard let number = value.numberValue, number.isFinite, number >= 0 else {
                throw NotARecord("field 'seconds' is not a number of seconds")
            }
            seconds = number
        }
    }

    /// Field `key`: `nil` when absent; a whole number from 0 to 2^53.
    private static func count(_ key: String, in json: JSONValue) throws(NotARecord) -> Int? {
        guard let value = json[key] else { return nil }
        guard let number = value.numberValue, number >= 0, number <= 9_007_199_254_740_992, number.rounded() == number else {
            throw NotARecord("field '\(key)' is not a whole number from 0 to 2^53")
        }
        return Int(number)
    }

    /// Why a journal line is not a record.
    struct NotARecord: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    init(session: String, path: String, status: Status, reason: String? = nil) {
        self.session = session
        self.path = path
        self.status = status
        self.reason = reason
    }
}

/// The journal of a run: one line of JSON per finished session (done or failed), appended as
/// each finishes (after its output is in place), so that after a kill `--resume` knows which
/// sessions are done; with `sync`, each line is synced to disk too, for machine crashes. A
/// later line for the same session replaces an earlier one.
final class ReplayJournal: @unchecked Sendable {
    /// The file name inside `--out DIR`.
    static let fileName = ".anna-replay-journal.ndjson"

    let path: String
    private let descriptor: Int32
    private let sync: Bool
    private let lock = Locked(())

    /// Opens `path` for appending (created when missing); with `truncating`, empties it first;
    /// with `sync`, each line is synced to disk before ``append(_:)`` returns.
    /// - Throws: ``ReplayJournalError``.
    init(path: String, truncating: Bool, sync: Bool = false) throws {
        self.path = path
        self.sync = sync
        let flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncating ? O_TRUNC : 0)
        descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else { throw ReplayJournalError.cannotOpen(path, reason: String(cString: strerror(errno))) }
    }

    deinit { close(descriptor) }

    /// Appends `record` as one line (and syncs it, with `sync`).
    /// - Throws: ``ReplayJournalError/cannotWrite(_:reason:)``.
    func append(_ record: SessionRecord) throws {
        let bytes = Array((record.json.jsonText + "\n").utf8)
        try lock.withLock { _ in
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw ReplayJournalError.cannotWrite(path, reason: String(cString: strerror(errno)))
                }
                written += count
            }
            guard !sync || fsync(descriptor) == 0 else { throw ReplayJournalError.cannotWrite(path, reason: String(cString: strerror(errno))) }
        }
    }

    /// The last record of each session in the journal at `path` (none when it does not
    /// exist), and one note when some lines are not records (the last line of a run killed
    /// while writing it is cut short; a line edited by hand may hold anything): such lines
    /// are ignored, so their sessions are replayed again.
    static func read(path: String) throws -> (records: [String: SessionRecord], note: String?) {
        guard LocalFileAccess().fileExists(atPath: path) else { return ([:], nil) }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ReplayJournalError.cannotOpen(path, reason: error.localizedDescription)
        }
        var records: [String: SessionRecord] = [:]
        var ignored: [(line: Int, reason: String)] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() where !line.isEmpty {
            do {
                let record = try SessionRecord(json: try JSONValue(parsing: String(line)))
                records[record.session] = record
            } catch {
                ignored.append((number + 1, "\(error)"))
            }
        }
        guard let first = ignored.first else { return (records, nil) }
        let what =
            ignored.count == 1
            ? "line \(first.line) is not a journal record (\(first.reason))"
            : "\(ignored.count) lines are not journal records (line \(first.line): \(first.reason); also "
                + Self.listed(ignored.dropFirst().map { "\($0.line)" }) + ")"
        return (records, "\(path): \(what); ignored, like a line cut short by a stopped run")
    }

    /// Up to five items, then how many more.
    private static func listed(_ items: [String]) -> String {
        items.prefix(5).joined(separator: ", ") + (items.count > 5 ? " and \(items.count - 5) more" : "")
    }
}

/// Why the journal cannot be used.
enum ReplayJournalError: Error, CustomStringConvertible {
    case cannotOpen(String, reason: String)
    case cannotWrite(String, reason: String)

    var description: String {
        switch self {
        case let .cannotOpen(path, reason): return "cannot open the journal \(path): \(reason)"
        case let .cannotWrite(path, reason): return "cannot write the journal \(path): \(reason)"
        }
    }
}
