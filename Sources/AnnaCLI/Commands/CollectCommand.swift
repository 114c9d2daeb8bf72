import AnnaCollector
import ArgumentParser
import Foundation

/// `anna collect`: a development collector for outbox uploads, with failure injection.
struct CollectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collect",
        abstract: "Receive outbox uploads, store each result once, print a line per batch.",
        discussion: """
            Accepts POST (any path) with the outbox's body, stores results in --store
            (SQLite, deduplicated by messageId) and prints one line per request.
            Failure injection shows how an uploader copes:

              anna collect --port 8080 --store collected.sqlite
              anna collect --port 8080 --store c.sqlite --fail-status 503 --fail-count 3 --retry-after 2
              anna collect --port 8080 --store c.sqlite --reject-message-containing POISON --reject-status 422
              anna collect --port 8080 --store c.sqlite --max-body-bytes 20000 --drop-connection-every 5
            """)

    @Option(help: "The port to listen on.") var port: Int
    @Option(help: ArgumentHelp("The SQLite file results are stored in.", valueName: "file")) var store: String
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

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        if let failStatus, !(100...599).contains(failStatus) { throw ValidationError("--fail-status must be 100...599") }
        guard (400...499).contains(rejectStatus) else { throw ValidationError("--reject-status must be a 4xx status") }
    }

    func run() throws {
        var configuration = CollectorConfiguration(storePath: store, port: port)
        configuration.host = host
        configuration.failures.failStatus = failStatus
        configuration.failures.failCount = failCount
        configuration.failures.retryAfter = retryAfter
        configuration.failures.delayMilliseconds = delayMilliseconds
        configuration.failures.dropConnectionEvery = dropConnectionEvery
        configuration.failures.rejectMessageContaining = rejectMessageContaining
        configuration.failures.rejectStatus = rejectStatus
        configuration.failures.maximumBodyBytes = maximumBodyBytes
        let collector: Collector
        do {
            collector = try Collector(configuration: configuration) { printOutput($0) }
        } catch {
            printError("\(store): \(error)")
            throw ExitCodes.cannotCreate
        }
        let host = host
        try runBlocking {
            try await collector.run(stoppingOnSignals: true) { port in
                printError("anna collect: listening on http://\(host):\(port)/")
            }
        }
    }
}
