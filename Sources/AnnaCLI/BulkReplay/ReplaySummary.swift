import CoreJS
import Foundation

/// The end of a replay: how many sessions were done, failed and skipped, and why.
struct ReplaySummary {
    /// Sessions listed (before sharding).
    var listed: Int
    var shard: Shard?
    /// Every session of the shard: those settled by the journal (skipped, or failed in an
    /// earlier run), then those replayed, in list order.
    var records: [SessionRecord]
    var seconds: Double
    /// The engine options the replay chose (``EngineTuning/forManySessions()``).
    var engineOptions: [String] = []
    /// How many failed sessions the run accepts and still succeeds (`--max-failed`).
    var maximumFailed = 0

    var done: Int { records.filter { $0.status == .done }.count }
    var failed: Int { records.filter { $0.status == .failed }.count }
    var skipped: Int { records.filter { $0.status == .skipped }.count }
    /// Failures recorded by an earlier run and not replayed again.
    var failedEarlier: Int { records.filter { $0.status == .failed && $0.earlierRun }.count }
    /// Whether `--require-coverage` found nothing missing (or was not given).
    var covered = true

    /// Whether at most ``maximumFailed`` sessions failed.
    var withinMaximumFailed: Bool { failed <= maximumFailed }
    /// Whether the run succeeds: at most ``maximumFailed`` sessions failed, and ``covered``.
    var succeeded: Bool { withinMaximumFailed && covered }

    /// Prints the summary on standard error: one line of counts, each failure, then, when
    /// a session failed, whether that is more than ``maximumFailed``.
    func print() {
        let lines = records.reduce(0) { $0 + $1.lines }
        let results = records.filter { $0.status == .done }.reduce(0) { $0 + $1.results }
        let shardText = shard.map { ", shard \($0) of \(Plural.count(listed, "session")) listed" } ?? ""
        let rate = seconds > 0 ? Double(done + failed - failedEarlier) / seconds : 0
        let earlier = failedEarlier > 0 ? " (\(failedEarlier) in an earlier run)" : ""
        printError(
            "anna: \(Plural.count(records.count, "session"))\(shardText): \(done) done, \(failed) failed\(earlier), \(skipped) skipped; "
                + "\(Plural.count(lines, "line")), \(Plural.count(results, "result")) in \(String(format: "%.2f", seconds)) s "
                + "(\(String(format: "%.1f", rate)) sessions/s)")
        for record in records where record.status == .failed {
            let earlier = record.earlierRun ? " (in an earlier run; --retry-failed replays it)" : ""
            printError("anna: failed: \(record.session) (\(record.path)): \(record.reason ?? "")\(earlier)")
        }
        guard failed > 0 else { return }
        if withinMaximumFailed {
            printError("anna: \(Plural.count(failed, "session")) failed, within --max-failed \(maximumFailed)")
        } else if maximumFailed > 0 {
            printError("anna: \(Plural.count(failed, "session")) failed, more than --max-failed \(maximumFailed); failing the run")
        } else {
            printError("anna: \(Plural.count(failed, "session")) failed; failing the run (--max-failed N accepts up to N)")
        }
    }

    /// `{"sessions":…,"done":[…],"failed":[{session,path,reason}],"skipped":[…],…}`; a
    /// failure of an earlier run has `"earlierRun":true`.
    var json: JSONValue {
        func entry(_ record: SessionRecord) -> JSONValue {
            var fields: [(String, JSONValue)] = [("session", .string(record.session)), ("path", .string(record.path))]
            if let reason = record.reason { fields.append(("reason", .string(reason))) }
            if record.earlierRun { fields.append(("earlierRun", .bool(true))) }
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
            "maxFailed": .number(Double(maximumFailed)),
            "succeeded": .bool(succeeded),
            "engineOptions": .array(engineOptions.map { .string($0) }),
        ])
    }
}
