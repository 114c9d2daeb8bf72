import AnnaCollector
import ArgumentParser
import CoreJS
import Foundation

/// `anna collect`: a development collector for outbox uploads, with failure injection.
struct CollectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collect",
        abstract: "Receive outbox uploads, store each result once, print a line per batch.",
        discussion: """
            Accepts POST (any path) with the outbox's body, stores results in --store
            (SQLite, deduplicated by messageId) and prints one line per request. On SIGTERM
            or SIGINT it finishes the requests under way, prints what this run stored and
            what the store holds, then "anna collect: stopped" (on standard error).

            --list FILE prints what a store holds, one JSON object per line (NDJSON, by
            session and seq): messageId, session, seq, time, task, path, event, result (the
            result as sent), receivedAt (seconds since 1970). It only reads the file (exit 66
            when it is missing or not a store).

            A connection that has not sent a whole request head within --idle-timeout
            seconds (of opening, or of its last answer), or sends nothing for that long
            mid-body, is closed. At most --max-connections are served at once (default: half
            the file descriptors beyond 64 of ulimit -n, 8 to 1024); more wait until one
            closes.

            Failure injection shows how an uploader copes:

              anna collect --port 8080 --store collected.sqlite
              anna collect --port 8080 --store c.sqlite --fail-status 503 --fail-count 3 --retry-after 2
              anna collect --port 8080 --store c.sqlite --reject-message-containing POISON --reject-status 422
              anna collect --port 8080 --store c.sqlite --max-body-bytes 20000 --drop-connection-every 5
              anna collect --list collected.sqlite | jq -c '.result'
            """)

    @Option(help: "The port to listen on (0: any free port; required unless --list).") var port: Int?
    @Option(help: ArgumentHelp("The SQLite file results are stored in (required unless --list).", valueName: "file")) var store: String?
    @Option(help: ArgumentHelp("Print the results a store holds as NDJSON, and exit.", valueName: "file")) var list: String?
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(name: .customLong("fail-status"), help: "Answer injected failures with this status.") var failStatus: Int?
    @Option(name: .customLong("fail-count"), help: "How many requests --fail-status answers (-1: all).") var failCount = 1
    @Option(name: .customLong("retry-after"), help: "Send this Retry-After with injected failures.") var retryAfter: String?
    @Option(name: .customLong("delay-ms"), help: "Wait this long before each answer.") var delayMilliseconds = 0
    @Option(name: .customLong("drop-connection-every"), help: "Drop every n-th connection mid-answer.")
    var dropConnectionEvery = 0
    @Option(name: .customLong("reject-message-containing"), help: "Refuse batches with a result containing this text.")
    var rejectMessageContaining: String?
    @Option(name: .customLong("reject-status"), help: "The status of such a refusal (400 or 422).") var rejectStatus = 400
    @Option(name: .customLong("max-body-bytes"), help: "Answer 413 to larger bodies.") var maximumBodyBytes: Int?
    @Option(name: .customLong("idle-timeout"), help: "Close a connection silent this many seconds mid-request.") var idleTimeout = 10.0
    @Option(name: .customLong("max-connections"), help: "Serve at most this many connections at once.") var maximumConnections: Int?

    func validate() throws {
        if list != nil {
            guard port == nil, store == nil else { throw ValidationError("--list reads a store and exits: leave out --port and --store") }
            return
        }
        guard let port else { throw ValidationError("give --port (0: any free port) and --store, or --list FILE") }
        guard store != nil else { throw ValidationError("give --store FILE (the SQLite file results are stored in)") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        if let failStatus, !(100...599).contains(failStatus) { throw ValidationError("--fail-status must be 100...599") }
        guard (400...499).contains(rejectStatus) else { throw ValidationError("--reject-status must be a 4xx status") }
        guard idleTimeout.isFinite, idleTimeout > 0, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout must be a number of seconds above 0, at most 86400")
        }
        if let maximumConnections, maximumConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
    }

    func run() throws {
        if let list { return try Self.list(list) }
        guard let port, let store else { throw CommandFailure(exitCode: ExitCodes.usage) }  // validate() made sure
        var configuration = CollectorConfiguration(storePath: store, port: port)
        configuration.host = host
        configuration.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        configuration.maximumConnections = maximumConnections
        configuration.onConnectionCapReached = { cap in
            printError(
                "anna collect: \(Plural.count(cap, "connection")) open, the most served at once (--max-connections); new ones wait until one closes")
        }
        configuration.failures.failStatus = failStatus
        configuration.failures.failCount = failCount
        configuration.failures.retryAfter = retryAfter
        configuration.failures.delay = .milliseconds(delayMilliseconds)
        configuration.failures.dropConnectionEvery = dropConnectionEvery
        configuration.failures.rejectMessageContaining = rejectMessageContaining
        configuration.failures.rejectStatus = rejectStatus
        configuration.failures.maximumBodyBytes = maximumBodyBytes
        let collector: Collector
        do {
            collector = try Collector(configuration: configuration) { printOutput($0) }
        } catch {
            throw CommandFailure("\(store): \(error)", exitCode: ExitCodes.cannotCreate)
        }
        let host = host
        try runBlocking {
            try await collector.run(stoppingOnSignals: true) { port in
                printError("anna collect: listening on http://\(host):\(port)/")
            }
        }
        do {
            printError("anna collect: \(try collector.runSummary())")
        } catch {
            printError("anna collect: cannot count what \(store) holds: \(error)")
        }
        printError("anna collect: stopped")
    }

    /// Prints the results the store at `path` holds, one JSON object per line.
    static func list(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("anna collect: no such store: \(path)", exitCode: ExitCodes.noInput)
        }
        do {
            try CollectorStore(readingAt: path).forEachLine { printOutput($0) }
        } catch {
            throw CommandFailure("anna collect: \(error)", exitCode: ExitCodes.noInput)
        }
    }
}
