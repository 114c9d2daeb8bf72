import Anna
import CoreJS
import Foundation

/// Replays one session file into a ``SessionOutput`` and returns what happened: the one
/// place that knows how a session is replayed.
///
/// It replays on `anna run`'s path (``StreamReplay``): lines decoded straight into the
/// engine's operations, results passed on as the text the engine wrote, malformed lines and
/// core errors reported on standard error as `FILE:LINE: message`; its result lines are
/// those `anna run` prints for the same file. Unlike `anna run`, it never stops the process:
/// a session that cannot go on (a malformed line without `--keep-going`, the session timeout,
/// `--strict` and a core error, a file that cannot be opened or read or is not a regular file,
/// a line longer than ``LineReader/maximumLineBytes``) fails, its output is dropped, and the
/// next session runs.
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
        /// Wall-clock seconds a session may take (checked every few hundred lines), or `nil`.
        var sessionTimeout: Double?
        /// A new engine for every session instead of a reset one.
        var freshEngines = false
        /// Each output synced to disk before it is renamed into place (`--sync`).
        var sync = false
    }

    private let configuration: AnalyticsEngine.Configuration
    private let settings: Settings
    private let messages: MessageWriter
    /// Messages about a session's lines (`FILE:LINE: …`), on standard error.
    private let lineMessages: ProgressReporter
    private let console: SessionConsoleSink?
    /// Where each session's coverage goes, or `nil`.
    private let coverage: CoverageTally?
    private var engine: AnalyticsEngine?

    /// - Parameters:
    ///   - configuration: the engines' configuration (its console is `console`'s).
    ///   - lineMessages: where messages about lines go (shared by the workers).
    ///   - console: the sink of the configuration's console, told each session's name.
    ///   - coverage: gathers the engine's coverage after each session (while it needs more).
    init(
        configuration: AnalyticsEngine.Configuration, settings: Settings, messages: MessageWriter, lineMessages: ProgressReporter,
        console: SessionConsoleSink?, coverage: CoverageTally? = nil
    ) {
        var configuration = configuration
        configuration.resettable = true
        self.configuration = configuration
        self.settings = settings
        self.messages = messages
        self.lineMessages = lineMessages
        self.console = console
        self.coverage = coverage
    }

    /// Replays `session` into `output` (committed when the session is done, else discarded).
    func replay(_ session: SessionFile, into output: any SessionOutput) -> SessionRecord {
        let started = ContinuousClock.now
        console?.setSession(session.name)
        var record = replay(session, into: output, started: started)
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
        let reader: LineReader
        do {
            reader = try LineReader(regularFile: session.path)
        } catch {
            output.discard()
            return failed(record, error.message)
        }
        let writer = ResultWriter(output: OutputBuffer(descriptor: output.descriptor, name: output.name), meta: settings.meta)
        var timedOut = false
        let deadline = settings.sessionTimeout.map { started + .seconds($0) }
        let summary = StreamReplay.run(
            reader, through: engine, writingTo: writer, keepGoing: settings.keepGoing, progress: lineMessages,
            shouldStop: deadline.map { deadline in
                {
                    timedOut = ContinuousClock.now > deadline
                    return timedOut
                }
            })
        record.lines = summary.lines
        record.errors = summary.errors.total
        coverage?.add(from: engine)
        record.results = summary.results
        if let failure = writer.output.failure {
            output.discard()
            return failed(record, "cannot write the results to \(output.name): \(failure)")
        }
        if let failure = reader.failure {
            output.discard()
            return failed(record, "line \(failure.line ?? summary.lines + 1): \(failure.message)")
        }
        if timedOut, let limit = settings.sessionTimeout {
            output.discard()
            let elapsed = (ContinuousClock.now - started).seconds
            return failed(record, "timed out after \(String(format: "%.1f", elapsed)) s at line \(summary.lines) (--session-timeout \(limit))")
        }
        if summary.stopped {
            output.discard()
            if let reason = summary.stopReason { return failed(record, "line \(summary.lines): \(reason)") }
            return failed(record, "malformed line \(summary.lines) (--keep-going skips such lines)")
        }
        if settings.strict, summary.errors.total > 0 {
            output.discard()
            return failed(record, "\(summary.errors.description) (--strict)")
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
        let made = try AnalyticsEngine(configuration: configuration)
        engine = made
        return made
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
