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

    /// The journal line: one JSON object.
    var json: JSONValue {
        var fields: [(String, JSONValue)] = [("session", .string(session)), ("path", .string(path)), ("status", .string(status.rawValue))]
        if let reason { fields.append(("reason", .string(reason))) }
        fields += [("lines", .number(Double(lines))), ("results", .number(Double(results))), ("errors", .number(Double(errors)))]
        if let outputBytes { fields.append(("outputBytes", .number(Double(outputBytes)))) }
        fields.append(("seconds", .number((seconds * 1000).rounded() / 1000)))
        return .object(.init(uniqueKeysWithValues: fields))
    }

    /// Reads a journal line; `nil` when it is not one.
    init?(json: JSONValue) {
        guard let session = json["session"]?.stringValue, let path = json["path"]?.stringValue,
            let status = json["status"]?.stringValue.flatMap(Status.init(rawValue:))
        else { return nil }
        self.init(session: session, path: path, status: status, reason: json["reason"]?.stringValue)
        lines = Int(json["lines"]?.numberValue ?? 0)
        results = Int(json["results"]?.numberValue ?? 0)
        errors = Int(json["errors"]?.numberValue ?? 0)
        outputBytes = json["outputBytes"]?.numberValue.map { Int($0) }
        seconds = json["seconds"]?.numberValue ?? 0
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
    /// exist), and a note for each line that is not a record (the last line of a run killed
    /// while writing it is cut short).
    static func read(path: String) throws -> (records: [String: SessionRecord], notes: [String]) {
        guard LocalFileAccess().fileExists(atPath: path) else { return ([:], []) }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ReplayJournalError.cannotOpen(path, reason: error.localizedDescription)
        }
        var records: [String: SessionRecord] = [:]
        var notes: [String] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() where !line.isEmpty {
            let record: SessionRecord?
            do {
                record = SessionRecord(json: try JSONValue(parsing: String(line)))
            } catch {
                record = nil
            }
            guard let record else {
                notes.append("\(path):\(number + 1): not a journal record, ignored (a run stopped while writing it?)")
                continue
            }
            records[record.session] = record
        }
        return (records, notes)
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
