import CoreJS
import Foundation

/// The end of a replay: how many sessions were done, failed and skipped, and why.
struct ReplaySummary {
    /// Sessions listed (before sharding).
    var listed: Int
    var shard: Shard?
    /// Every session of the shard: skipped, then replayed, in list order.
    var records: [SessionRecord]
    var seconds: Double
    /// The engine options the replay chose (``EngineTuning/forManySessions()``).
    var engineOptions: [String] = []

    var done: Int { records.filter { $0.status == .done }.count }
    var failed: Int { records.filter { $0.status == .failed }.count }
    var skipped: Int { records.filter { $0.status == .skipped }.count }

    /// Prints the summary on standard error: one line of counts, then each failure.
    func print() {
        let lines = records.reduce(0) { $0 + $1.lines }
        let results = records.filter { $0.status == .done }.reduce(0) { $0 + $1.results }
        let shardText = shard.map { ", shard \($0) of \(listed) sessions listed" } ?? ""
        let rate = seconds > 0 ? Double(done + failed) / seconds : 0
        printError(
            "anna: \(records.count) sessions\(shardText): \(done) done, \(failed) failed, \(skipped) skipped; "
                + "\(lines) lines, \(results) results in \(String(format: "%.2f", seconds)) s (\(String(format: "%.1f", rate)) sessions/s)")
        for record in records where record.status == .failed {
            printError("anna: failed: \(record.session) (\(record.path)): \(record.reason ?? "")")
        }
    }

    /// `{"sessions":…,"done":[…],"failed":[{session,path,reason}],"skipped":[…],…}`.
    var json: JSONValue {
        func entry(_ record: SessionRecord) -> JSONValue {
            var fields: [(String, JSONValue)] = [("session", .string(record.session)), ("path", .string(record.path))]
            if let reason = record.reason { fields.append(("reason", .string(reason))) }
            return .object(.init(uniqueKeysWithValues: fields))
        }
        return .object([
            "sessions": .number(Double(records.count)),
            "listed": .number(Double(listed)),
            "shard": shard.map { .string($0.description) } ?? .null,
            "seconds": .number((seconds * 1000).rounded() / 1000),
            "results": .number(Double(records.filter { $0.status == .done }.reduce(0) { $0 + $1.results })),
            "done": .array(records.filter { $0.status == .done }.map { .string($0.session) }),
            "failed": .array(records.filter { $0.status == .failed }.map(entry)),
            "skipped": .array(records.filter { $0.status == .skipped }.map(entry)),
            "engineOptions": .array(engineOptions.map { .string($0) }),
        ])
    }
}
