import Anna
import ArgumentParser
import CoreJS
import Foundation

/// `anna replay`: many sessions at once, each with its own engine, each to its own output.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay many session files in parallel, each session's results to its own file.",
        discussion: """
            Sessions are the files given, the .ndjson files directly in the folders
            given, and the paths a --manifest lists (one a line, relative to the
            manifest; # comments). A session's name is its file name without .ndjson;
            names must be unique (two files of the same name in different folders
            stop the run before it starts, exit 64).

            Each session runs on an engine of its own (--jobs engines in parallel,
            one session per engine at a time; engines are reset between sessions,
            leaving nothing of the last one). With --out DIR its results go to
            DIR/<session>.ndjson, exactly what `anna run` prints for it; with --meta
            and no --out, standard output carries
            {"session":…,"result":…,"task":…,"path":…,"event":…} lines, each
            session's lines together and in order.

            A session that fails (a malformed line without --keep-going, the
            --session-timeout, --strict and a core error, a file that cannot be
            read or is not a regular file, a line longer than
            $\(LineReader.maximumLineBytesVariable) bytes, 16 MiB by default) is
            reported, leaves no output, and the run goes on. Each finished session,
            done or failed with its reason, is appended to the journal
            (DIR/\(ReplayJournal.fileName), or --journal FILE); --resume skips the
            sessions it lists as done whose output is complete, counts those it
            lists as failed as failed again without replaying them (--retry-failed
            replays them), and replays the others. The summary on standard error
            (and --summary-json FILE) lists done, failed and skipped sessions.

            No output (--out, its files, --journal, --summary-json, --console) may be
            one of the sessions: such a run stops before it starts (exit 64).

            --shard i/N replays the sessions whose name hashes to i (of 0…N-1), so N
            processes given the same sessions share them without overlap;
            --shard-from-env N takes i from $\(Shard.environmentVariable) (Kubernetes
            Indexed Jobs). See docs/scale-out.md.

            A task file that exists and that no session loaded is named once, after
            the summary; --require-coverage exits 1 when a task file was never
            loaded or a task never ran in any session replayed, listing each with
            FILE:LINE.

            Exit codes: 0 every session done (or skipped), or at most --max-failed
            failed; 1 more sessions failed, or --require-coverage found a gap;
            64 bad arguments, clashing session names, or an output that is a session; 66 a missing session file,
            folder or manifest, or a module that cannot be loaded; 73 --out,
            --journal, --summary-json or --console cannot be written.

            Examples:
              anna replay sessions/ --tasks analytics/task --out results
              anna replay --manifest sessions.txt --module analytics --out results --jobs 4
              anna replay sessions/ --module analytics --meta > all-results.ndjson
              anna replay sessions/ --module analytics --out results --resume
              anna replay --manifest all.txt --module analytics --out results --shard 2/8
            """)

    @Argument(help: ArgumentHelp("Session files (NDJSON event streams) and folders of them.", valueName: "session|folder"))
    var sessions: [String] = []

    @Option(help: ArgumentHelp("A file listing session files, one path a line.", valueName: "file"))
    var manifest: String?

    @OptionGroup var module: ModuleOptions
    @OptionGroup var coverageRequirement: CoverageRequirement

    @Option(help: ArgumentHelp("Write each session's results to DIR/<session>.ndjson (created if missing).", valueName: "dir"))
    var out: String?

    @Flag(help: "Tag each result with its task, path and event; without --out, lines go to standard output with the session's name.")
    var meta = false

    @Option(help: ArgumentHelp("Sessions replayed in parallel (default: the number of CPUs).", valueName: "n"))
    var jobs: Int?

    @Option(
        name: .customLong("session-timeout"),
        help: ArgumentHelp(
            "Fail a session that runs longer than this, opening and reading included (checked every 256 lines); inf: no limit.",
            valueName: "seconds"))
    var sessionTimeout: Double?

    /// The longest `--session-timeout` short of `inf`: about 31 years.
    static let maximumSessionTimeout = 1e9

    @Flag(
        help: """
            Skip the sessions the journal lists as done (with complete output); count those it lists as failed \
            as failed again, without replaying them; replay the rest.
            """)
    var resume = false

    @Flag(name: .customLong("retry-failed"), help: "With --resume: replay the sessions the journal lists as failed too.")
    var retryFailed = false

    @Option(
        name: .customLong("max-failed"),
        help: ArgumentHelp("Succeed (exit 0) when at most n sessions failed; they are listed all the same.", valueName: "n"))
    var maxFailed = 0

    @Option(help: ArgumentHelp("The journal (default: DIR/\(ReplayJournal.fileName) with --out).", valueName: "file"))
    var journal: String?

    @Option(name: .customLong("summary-json"), help: ArgumentHelp("Also write the summary as JSON to this file.", valueName: "file"))
    var summaryJSON: String?

    @Option(help: ArgumentHelp("Replay only shard i of N (0 ≤ i < N): the sessions whose name hashes to i.", valueName: "i/N"))
    var shard: String?

    @Option(
        name: .customLong("shard-from-env"),
        help: ArgumentHelp("Replay shard $\(Shard.environmentVariable) of N.", valueName: "N"))
    var shardFromEnvironment: Int?

    @Flag(name: .customLong("keep-going"), help: "Skip malformed lines (reported) instead of failing the session.")
    var keepGoing = false

    @Flag(help: "Fail a session in which the core reported any error (a task threw, a task file failed to load, …).")
    var strict = false

    @Option(
        name: .customLong("console"),
        help: ArgumentHelp("Write console output of task scripts to this file instead of standard error.", valueName: "file"))
    var consolePath: String?

    @Flag(name: .customLong("fresh-engines"), help: "Make a new engine for every session instead of resetting one (slower; the same results).")
    var freshEngines = false

    @Flag(
        help: """
            Sync each session's output and journal line to disk before going on, so a machine crash loses \
            no session recorded as done (slower on a busy disk; a killed run loses nothing without it).
            """)
    var sync = false

    func validate() throws {
        guard out != nil || meta else {
            throw ValidationError("Give --out DIR (a file per session) or --meta (tagged lines on standard output).")
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, got \(jobs).") }
        if let sessionTimeout, !(sessionTimeout > 0 && (sessionTimeout <= Self.maximumSessionTimeout || sessionTimeout == .infinity)) {
            throw ValidationError(
                "--session-timeout takes a number of seconds above 0 and at most \(Int(Self.maximumSessionTimeout)), "
                    + "or inf for no limit; got \(sessionTimeout).")
        }
        guard maxFailed >= 0 else { throw ValidationError("--max-failed takes a number of sessions (0 or more), got \(maxFailed).") }
        if retryFailed, !resume {
            throw ValidationError("--retry-failed goes with --resume (without --resume, every session is replayed).")
        }
        if resume, out == nil, journal == nil {
            throw ValidationError("--resume needs a journal: give --out DIR (its journal is DIR/\(ReplayJournal.fileName)) or --journal FILE.")
        }
        if shard != nil, shardFromEnvironment != nil {
            throw ValidationError("Give one of --shard i/N and --shard-from-env N.")
        }
        if let shard, Shard(shard) == nil {
            throw ValidationError("--shard takes i/N with 0 ≤ i < N (e.g. 0/4), got '\(shard)'.")
        }
        if let shardFromEnvironment, shardFromEnvironment < 1 {
            throw ValidationError("--shard-from-env takes the number of shards (at least 1), got \(shardFromEnvironment).")
        }
        if sessions.isEmpty, manifest == nil {
            throw ValidationError("Give session files, folders of them, or --manifest FILE.")
        }
    }

    func run() throws {
        let started = ContinuousClock.now
        let engineOptions = EngineTuning.forManySessions()  // before the first engine
        let chosenShard = try self.chosenShard()
        var all: [SessionFile]
        do {
            all = try SessionList.collect(arguments: sessions, manifest: manifest)
        } catch let error as SessionListError {
            let exitCode =
                switch error {
                case .nameClash, .unusableName: ExitCodes.usage
                case .missing, .unreadable: ExitCodes.noInput
                }
            throw CommandFailure("anna: \(error)", exitCode: exitCode)
        }
        let listed = all.count
        let everySession = all
        if let chosenShard { all = all.filter(chosenShard.contains) }

        let journalPath = journal ?? out.map { $0 + "/" + ReplayJournal.fileName }
        // Before anything is created or truncated: no output may be a session.
        let outputs = OutputClash.outputs(folder: out, sessions: all, journal: journalPath, summary: summaryJSON, console: consolePath)
        if let clash = OutputClash.first(among: outputs, sessions: everySession) {
            throw CommandFailure("anna: \(clash)", exitCode: ExitCodes.usage)
        }
        if let out { try Self.makeFolder(out) }
        var previous: [String: SessionRecord] = [:]
        if resume, let journalPath {
            do {
                let (records, note) = try ReplayJournal.read(path: journalPath)
                previous = records
                if let note { printError("anna: \(note)") }
            } catch {
                throw CommandFailure("anna: \(error)", exitCode: ExitCodes.noInput)
            }
        }
        let openedJournal: ReplayJournal?
        do {
            openedJournal = try journalPath.map { try ReplayJournal(path: $0, truncating: !resume, sync: sync) }
        } catch {
            throw CommandFailure("anna: \(error)", exitCode: ExitCodes.cannotCreate)
        }

        var settled: [SessionRecord] = []
        var pending: [SessionFile] = []
        for session in all {
            if let earlier = previous[session.name], earlier.path == session.path {
                switch earlier.status {
                case .done:
                    if let reason = incompleteOutput(of: session, done: earlier) {
                        printError("anna: \(session.name): \(reason); replaying it again")
                    } else {
                        var record = earlier
                        record.status = .skipped
                        record.reason = "done in an earlier run (journal)"
                        settled.append(record)
                        continue
                    }
                case .failed where !retryFailed:
                    var record = earlier
                    record.earlierRun = true
                    settled.append(record)
                    continue
                case .failed, .skipped:
                    break
                }
            }
            pending.append(session)
        }

        let messages = MessageWriter()
        let consoleWriter = try consoleDestination(messages: messages)
        let consoleSink = SessionConsoleSink(destination: consoleWriter)
        var configuration = try module.engineConfiguration(console: Console(output: consoleSink))
        configuration.console = Console(output: consoleSink)
        // The module loads once here, so a module that cannot load stops the run (66) before
        // any session is blamed for it.
        _ = try module.loadEngine(console: Console(output: consoleSink))

        let settings = SessionReplayer.Settings(
            keepGoing: keepGoing, strict: strict, meta: meta, tagSession: out == nil,
            sessionTimeout: sessionTimeout == .infinity ? nil : sessionTimeout,
            freshEngines: freshEngines, sync: sync)
        let coverage = CoverageTally(countsTasks: coverageRequirement.isRequired)
        let replay = BulkReplay(
            sessions: pending, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, configuration: configuration, settings: settings,
            outputFolder: out, journal: openedJournal, messages: messages, console: consoleSink, coverage: coverage)
        let records: [SessionRecord]
        do {
            records = try replay.run()
        } catch {
            throw CommandFailure("anna: \(error); stopping (--resume goes on from the last session recorded)", exitCode: ExitCodes.cannotCreate)
        }
        var summary = ReplaySummary(
            listed: listed, shard: chosenShard, records: settled + records, seconds: (ContinuousClock.now - started).seconds,
            engineOptions: engineOptions, maximumFailed: maxFailed)
        summary.print()
        summary.covered = covered(coverage, replayed: pending.count)
        if let summaryJSON {
            do {
                try (summary.json.jsonText + "\n").write(toFile: summaryJSON, atomically: true, encoding: .utf8)
            } catch {
                throw CommandFailure(
                    "anna: cannot write the summary to \(summaryJSON): \(error.localizedDescription)", exitCode: ExitCodes.cannotCreate)
            }
        }
        if !summary.succeeded { throw CommandFailure(exitCode: ExitCodes.failure) }
    }

    /// Prints the load warnings of the sessions replayed, and with `--require-coverage` each
    /// gap; `false` when `--require-coverage` finds a gap or has no coverage to judge.
    private func covered(_ coverage: CoverageTally, replayed: Int) -> Bool {
        guard replayed > 0 else {
            guard coverageRequirement.isRequired else { return true }
            printError("anna: --require-coverage: no session was replayed (the journal settled them all), so none is covered; failing the run")
            return false
        }
        if coverageRequirement.isRequired, let failure = coverage.failure { printError("anna: no coverage: \(failure)") }
        return coverageRequirement.report(coverage.coverage)
    }

    /// The `--shard` or `--shard-from-env` shard, or `nil` for all sessions.
    private func chosenShard() throws -> Shard? {
        if let shard { return Shard(shard) }
        guard let count = shardFromEnvironment else { return nil }
        guard let text = ProcessInfo.processInfo.environment[Shard.environmentVariable] else {
            throw CommandFailure(
                "anna: --shard-from-env \(count): $\(Shard.environmentVariable) is not set (Kubernetes sets it in Indexed Jobs)",
                exitCode: ExitCodes.usage)
        }
        guard let index = Int(text), let shard = Shard(index: index, count: count) else {
            throw CommandFailure(
                "anna: --shard-from-env \(count): $\(Shard.environmentVariable) is '\(text)', not a number from 0 to \(count - 1)",
                exitCode: ExitCodes.usage)
        }
        return shard
    }

    /// Why the output of a session the journal lists as done cannot be trusted, or `nil`.
    private func incompleteOutput(of session: SessionFile, done: SessionRecord) -> String? {
        guard let out else { return nil }
        let path = out + "/" + session.name + ".ndjson"
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.intValue
        else { return "its output \(path) is missing" }
        guard size == done.outputBytes else {
            return "its output \(path) has \(size) bytes, not the \(done.outputBytes ?? 0) the journal recorded"
        }
        return nil
    }

    private func consoleDestination(messages: MessageWriter) throws -> MessageWriter {
        guard let consolePath else { return messages }
        return MessageWriter(sink: try StreamOptions.consoleFile(consolePath))
    }

    private static func makeFolder(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("anna: cannot create the output folder \(path): \(error.localizedDescription)", exitCode: ExitCodes.cannotCreate)
        }
    }
}
