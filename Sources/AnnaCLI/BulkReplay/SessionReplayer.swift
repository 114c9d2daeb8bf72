import Anna
import CoreJS
import Foundation
import OrderedCollections

/// Replays one session file into a ``SessionOutput`` and returns what happened: the one
/// place that knows how a session is replayed (a faster stream path slots in here).
///
/// Like `anna run`, it sends operations to the engine in batches, reports malformed lines and
/// core errors on standard error as `FILE:LINE: message` and goes on after core errors; its
/// result lines are those `anna run` prints for the same file. Unlike `anna run`, it never
/// stops the process: a session that cannot go on (a malformed line without `--keep-going`,
/// the session timeout, `--strict` and a core error, an unreadable file) fails, its output is
/// dropped, and the next session runs.
///
/// One replayer per worker thread; it keeps its engine from session to session and resets it
/// in between (``AnalyticsEngine/reset()``), unless ``Settings/freshEngines``.
final class SessionReplayer {
    /// How sessions are replayed (the same for all).
    struct Settings: Sendable {
        var keepGoing = false
        var strict = false
        /// Result lines as `{"result":…,"task":…,"path":…,"event":…}`.
        var meta = false
        /// With ``meta``: the session's name first (`{"session":…,"result":…}`), for lines of
        /// many sessions in one stream.
        var tagSession = false
        /// Wall-clock seconds a session may take (checked between batches), or `nil`.
        var sessionTimeout: Double?
        /// A new engine for every session instead of a reset one.
        var freshEngines = false
    }

    /// Lines read per batch sent: small enough that the timeout is checked often.
    static let linesPerBatch = 512

    private let configuration: AnalyticsEngine.Configuration
    private let settings: Settings
    private let messages: MessageWriter
    private let console: SessionConsoleSink?
    private var engine: AnalyticsEngine?
    /// Where the engine's results go: the session under way.
    private let target = ResultTarget()

    /// - Parameters:
    ///   - configuration: the engines' configuration (its console is `console`'s).
    ///   - console: the sink of the configuration's console, told each session's name.
    init(configuration: AnalyticsEngine.Configuration, settings: Settings, messages: MessageWriter, console: SessionConsoleSink?) {
        self.configuration = configuration
        self.settings = settings
        self.messages = messages
        self.console = console
    }

    /// Replays `session` into `output` (committed when the session is done, else discarded).
    func replay(_ session: SessionFile, into output: any SessionOutput) -> SessionRecord {
        let started = ContinuousClock.now
        console?.setSession(session.name)
        var record = replay(session, into: output, started: started)
        target.output = nil
        record.seconds = (ContinuousClock.now - started).seconds
        return record
    }

    private func replay(_ session: SessionFile, into output: any SessionOutput, started: ContinuousClock.Instant) -> SessionRecord {
        var record = SessionRecord(session: session.name, path: session.path, status: .done)
        let engine: AnalyticsEngine
        do {
            engine = try readyEngine(for: session)
        } catch {
            output.discard()
            return failed(record, "the module cannot be loaded: \(error)")
        }
        guard let reader = LineReader(path: session.path) else {
            output.discard()
            return failed(record, "cannot open \(session.path)")
        }
        target.start(output: output, session: session.name, settings: settings)
        var run = SessionRun(engine: engine, reader: reader, settings: settings, messages: messages, started: started)
        let stop = run.replay()
        record.lines = run.lines
        record.errors = run.errors.total
        record.results = target.results
        if let failure = target.failure {
            output.discard()
            return failed(record, failure)
        }
        if let stop {
            output.discard()
            return failed(record, stop)
        }
        if settings.strict, run.errors.total > 0 {
            output.discard()
            return failed(record, "\(run.errors.description) (--strict)")
        }
        do {
            record.outputBytes = try output.commit()
        } catch {
            return failed(record, "\(error)")
        }
        return record
    }

    private func failed(_ record: SessionRecord, _ reason: String) -> SessionRecord {
        var record = record
        record.status = .failed
        record.reason = reason
        return record
    }

    /// The engine for the next session: the one kept, reset, or a new one.
    private func readyEngine(for session: SessionFile) throws -> AnalyticsEngine {
        if let engine, !settings.freshEngines {
            do {
                try engine.reset()
                return engine
            } catch {
                messages.writeLine("anna: \(session.name): the engine cannot be reset (\(error)); a new one replays it")
            }
        }
        engine = nil  // released before the next is made
        let target = self.target
        let made = try AnalyticsEngine(configuration: configuration) { result in target.deliver(result) }
        engine = made
        return made
    }
}

/// The session the engine's results go to (the engine keeps its result callback for life).
private final class ResultTarget {
    var output: (any SessionOutput)?
    private(set) var results = 0
    /// Set when writing the output failed (the session fails with it).
    private(set) var failure: String?
    private var meta = false
    private var tag: JSONValue?

    func start(output: any SessionOutput, session: String, settings: SessionReplayer.Settings) {
        self.output = output
        results = 0
        failure = nil
        meta = settings.meta
        tag = settings.tagSession ? .string(session) : nil
    }

    func deliver(_ result: AnalyticsResult) {
        guard let output, failure == nil else { return }
        results += 1
        let line: String
        if meta {
            var fields: OrderedDictionary<String, JSONValue> = [:]
            if let tag { fields["session"] = tag }
            fields["result"] = result.value
            fields["task"] = result.meta.map { .string($0.task) } ?? .null
            fields["path"] = result.meta.map { .string($0.path) } ?? .null
            fields["event"] = result.meta.map { .string($0.event) } ?? .null
            line = JSONValue.object(fields).jsonText
        } else {
            line = result.value.jsonText
        }
        do {
            try output.append(line)
        } catch {
            failure = "\(error)"
        }
    }
}

/// One pass over a session's lines (`anna run`'s loop, with the session timeout).
private struct SessionRun {
    let engine: AnalyticsEngine
    let reader: LineReader
    let settings: SessionReplayer.Settings
    let messages: MessageWriter
    let started: ContinuousClock.Instant
    private(set) var lines = 0
    private(set) var errors = CoreErrorTally()
    private var operations: [TimedOperation] = []
    private var operationLines: [Int] = []

    init(engine: AnalyticsEngine, reader: LineReader, settings: SessionReplayer.Settings, messages: MessageWriter, started: ContinuousClock.Instant) {
        self.engine = engine
        self.reader = reader
        self.settings = settings
        self.messages = messages
        self.started = started
    }

    /// Replays every line; returns why the session stopped, or `nil` when it ran to the end.
    mutating func replay() -> String? {
        while let line = reader.nextLine() {
            lines += 1
            if let stop = handle(line) { return stop }
            if operations.count >= SessionReplayer.linesPerBatch {
                send()
                if let stop = timedOut() { return stop }
            }
        }
        send()
        return timedOut()
    }

    private mutating func handle(_ line: String) -> String? {
        let record: EventStream.Record
        do {
            guard let parsed = try EventStream.parse(line: line) else { return nil }
            record = parsed
        } catch {
            send()  // messages stay in line order
            message(about: lines, "\(error)")
            return settings.keepGoing ? nil : "malformed line \(lines): \(VisibleText("\(error)", limit: 200)) (--keep-going skips such lines)"
        }
        switch record.command {
        case let .operation(operation):
            operations.append(TimedOperation(operation, time: record.time))
            operationLines.append(lines)
        case .snapshot:
            send()
            do {
                messages.writeLine(try engine.snapshot(format: .markup))
            } catch {
                report(error, line: lines)
            }
        case .version:
            break
        }
        return nil
    }

    private mutating func send() {
        guard !operations.isEmpty else { return }
        let lines = operationLines
        var failures: [(Int, AnalyticsError)] = []
        engine.apply(operations) { position, error in failures.append((lines[position], error)) }
        for (line, error) in failures { report(error, line: line) }
        operations.removeAll(keepingCapacity: true)
        operationLines.removeAll(keepingCapacity: true)
    }

    private func timedOut() -> String? {
        guard let limit = settings.sessionTimeout else { return nil }
        let elapsed = (ContinuousClock.now - started).seconds
        guard elapsed > limit else { return nil }
        return "timed out after \(String(format: "%.1f", elapsed)) s at line \(lines) (--session-timeout \(limit))"
    }

    private mutating func report(_ error: any Error, line: Int) {
        if let error = error as? AnalyticsError, !error.isFailure {
            message(about: line, "\(error)")
            return
        }
        if case let AnalyticsError.tasksFailed(failures) = error {
            for failure in failures { message(about: line, "error: \(failure)") }
        } else {
            message(about: line, "error: \(error)")
        }
        errors.count(error)
    }

    private func message(about line: Int, _ text: String) {
        messages.writeLine("\(reader.name):\(line): \(VisibleText(text, limit: .max))")
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
