import Anna
import CoreJS
import Foundation

/// Replays many sessions on `jobs` worker threads, each with its own engine, one session per
/// engine at a time; records each finished session in the journal; returns every record.
///
/// Workers take the sessions in list order, so with one job they finish in that order.
/// A session's failure is recorded and the run goes on; only a journal that cannot be written
/// stops it (a run that cannot record its progress must not pretend it did).
struct BulkReplay: Sendable {
    var sessions: [SessionFile]
    var jobs: Int
    var configuration: AnalyticsEngine.Configuration
    var settings: SessionReplayer.Settings
    /// `--out DIR`, or `nil` for standard output.
    var outputFolder: String?
    var journal: ReplayJournal?
    var messages: MessageWriter
    var console: SessionConsoleSink?
    /// Gathers the sessions' coverage, or `nil`.
    var coverage: CoverageTally?

    /// Runs every session; returns their records in list order.
    /// - Throws: ``ReplayJournalError`` when the journal cannot be written.
    func run() throws -> [SessionRecord] {
        let shared = SharedProgress(count: sessions.count)
        let standardOutput = StandardOutputWriter()
        let lineMessages = ProgressReporter(enabled: false)
        let replay = self
        let workers = (0..<max(1, min(jobs, sessions.count))).map { _ in
            let worker = Thread {
                replay.work(shared: shared, standardOutput: standardOutput, lineMessages: lineMessages)
                shared.workerDone()
            }
            worker.stackSize = 8 << 20  // like the main thread's: deep trees recurse in JavaScript
            return worker
        }
        for worker in workers { worker.start() }
        shared.waitUntilFinished(workers: workers.count)
        if let error = shared.journalError { throw error }
        return shared.records.compactMap { $0 }
    }

    /// Replays session after session until none is left (or the journal failed).
    fileprivate func work(shared: SharedProgress, standardOutput: StandardOutputWriter, lineMessages: ProgressReporter) {
        let replayer = SessionReplayer(
            configuration: configuration, settings: settings, messages: messages, lineMessages: lineMessages, console: console,
            coverage: coverage)
        while let position = shared.next() {
            let session = sessions[position]
            let record: SessionRecord
            do {
                let output: any SessionOutput =
                    if let outputFolder {
                        try SessionFileOutput(folder: outputFolder, session: session.name, sync: settings.sync)
                    } else {
                        try SessionStandardOutput(writer: standardOutput, tag: settings.meta && settings.tagSession ? session.name : nil)
                    }
                record = replayer.replay(session, into: output)
            } catch {
                record = SessionRecord(session: session.name, path: session.path, status: .failed, reason: "\(error)")
            }
            if record.status == .failed {
                messages.writeLine("anna: \(session.name) (\(session.path)) failed: \(record.reason ?? "")")
            }
            do {
                try journal?.append(record)
            } catch let error as ReplayJournalError {
                shared.finish(position, record, journalError: error)
                return
            } catch {
                shared.finish(position, record, journalError: .cannotWrite(journal?.path ?? "", reason: "\(error)"))
                return
            }
            shared.finish(position, record, journalError: nil)
        }
    }
}

/// The workers' shared state: the next session, the records, the finished workers.
private final class SharedProgress: @unchecked Sendable {
    private let condition = NSCondition()
    private var nextPosition = 0
    private var finishedWorkers = 0
    private(set) var records: [SessionRecord?]
    private(set) var journalError: ReplayJournalError?

    init(count: Int) {
        records = Array(repeating: nil, count: count)
    }

    func next() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard journalError == nil, nextPosition < records.count else { return nil }
        nextPosition += 1
        return nextPosition - 1
    }

    func finish(_ position: Int, _ record: SessionRecord, journalError: ReplayJournalError?) {
        condition.lock()
        records[position] = record
        if let journalError, self.journalError == nil { self.journalError = journalError }
        condition.unlock()
    }

    func workerDone() {
        condition.lock()
        finishedWorkers += 1
        condition.broadcast()
        condition.unlock()
    }

    func waitUntilFinished(workers: Int) {
        condition.lock()
        while finishedWorkers < workers { condition.wait() }
        condition.unlock()
    }
}
