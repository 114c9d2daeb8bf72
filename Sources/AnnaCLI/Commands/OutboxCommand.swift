import AnnaOutbox
import ArgumentParser
import CoreJS
import Foundation

/// `anna outbox`: look into an outbox file, upload it, list and requeue its dead letters.
struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Inspect, upload and repair an outbox file (docs/outbox.md).",
        discussion: """
            Examples:
              anna outbox stats results.sqlite --json
              anna outbox flush results.sqlite --deliver http://127.0.0.1:8080/batch
              anna outbox dead results.sqlite --requeue
            """,
        subcommands: [Stats.self, Flush.self, Dead.self])

    /// Opens `path` for a subcommand; a missing file, or one that is not an outbox, is an
    /// error (exit 66) and is left as it is. `readOnly` (stats, dead): nothing is written to a
    /// whole outbox of this version; one of an earlier version is migrated, and a damaged one
    /// salvaged, as any open would, and that is said first.
    static func open(_ path: String, readOnly: Bool = false, destination: String = "") throws -> Outbox {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("\(path): no such outbox file", exitCode: ExitCodes.noInput)
        }
        var configuration = OutboxConfiguration()
        configuration.readOnly = readOnly
        configuration.destinations = [destination]
        let standardError = StandardStreams.current.error  // the outbox reports from threads of its own
        do {
            do {
                return try Outbox(path: path, configuration: configuration) { standardError.writeLine("\($0)") }
            } catch let OutboxError.storage(_, message) where readOnly {
                // An outbox (the read-only open would have said otherwise) of an earlier version, or damaged.
                standardError.writeLine(
                    "anna: \(path) cannot be read as it is (\(message)); opening it to write, which migrates a file of an earlier version and salvages a damaged one"
                )
                return try Outbox(path: path) { standardError.writeLine("\($0)") }
            }
        } catch {
            throw CommandFailure("\(error)", exitCode: ExitCodes.noInput)
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print how many results wait, are in flight, were set aside or dropped.")

        @Argument(help: "The outbox file.") var file: String
        @Flag(
            help:
                "Print JSON: pending, inFlight, deadLetter, dropped (by reason), oldestAgeSeconds, destinations (each one's), anonymousId, userId."
        ) var json = false

        func run() throws {
            let outbox = try OutboxCommand.open(file, readOnly: true)
            defer { outbox.close() }
            let stats = try outbox.stats()
            if json {
                let dropped = JSONValue.object(
                    .init(uniqueKeysWithValues: stats.dropped.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) }))
                let destinations = JSONValue.object(
                    .init(
                        uniqueKeysWithValues: stats.destinations.sorted { $0.key < $1.key }.map { name, figures in
                            (
                                name,
                                [
                                    "pending": .number(Double(figures.pending)), "inFlight": .number(Double(figures.inFlight)),
                                    "deadLetter": .number(Double(figures.deadLetter)),
                                    "oldestAgeSeconds": .number((figures.oldestAgeSeconds * 1000).rounded() / 1000),
                                ] as JSONValue
                            )
                        }))
                let object: JSONValue = [
                    "pending": .number(Double(stats.pending)), "inFlight": .number(Double(stats.inFlight)),
                    "deadLetter": .number(Double(stats.deadLetter)), "dropped": dropped,
                    "oldestAgeSeconds": .number((stats.oldestAgeSeconds * 1000).rounded() / 1000),
                    "destinations": destinations, "anonymousId": .string(outbox.identity.anonymousId),
                    "userId": outbox.identity.userId.map(JSONValue.string) ?? .null,
                ]
                printOutput(object.jsonText)
            } else {
                printOutput("pending:          \(stats.pending)")
                printOutput("inFlight:         \(stats.inFlight)")
                printOutput("deadLetter:       \(stats.deadLetter)")
                let dropped = stats.dropped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                printOutput("dropped:          \(dropped.isEmpty ? "none" : dropped.joined(separator: ", "))")
                printOutput("oldestAgeSeconds: \(String(format: "%.1f", stats.oldestAgeSeconds))")
                printOutput("anonymousId:      \(outbox.identity.anonymousId)")
                printOutput("userId:           \(outbox.identity.userId ?? "none")")
                for (name, figures) in stats.destinations.sorted(by: { $0.key < $1.key }) {
                    printOutput(
                        "destination \(name.isEmpty ? "(default)" : name): \(figures.pending) pending, \(figures.inFlight) in flight, \(figures.deadLetter) dead letters, oldest \(String(format: "%.1f", figures.oldestAgeSeconds)) s"
                    )
                }
            }
        }
    }

    struct Flush: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload every waiting result, then exit: 1 when some are left at --timeout, or none was delivered.")

        @Argument(help: "The outbox file.") var file: String
        @Option(help: ArgumentHelp("Where to post the batches.", valueName: "url")) var deliver: String
        @Option(help: "Give up after this many seconds, the request under way included (default: never).") var timeout: Double?
        @Option(help: "The destination whose queue is sent (a name from --destinations; default: the default one).")
        var destination = ""
        @OptionGroup var delivery: DeliveryOptions

        func validate() throws {
            if let timeout { try SecondsOption.check(timeout, "--timeout") }
        }

        func run() throws {
            let outbox = try OutboxCommand.open(file, destination: destination)
            defer { outbox.close() }
            let uploader: OutboxUploader
            do {
                var configuration = try delivery.configuration(url: deliver)
                configuration.destination = destination
                configuration.flushAt = 1
                uploader = try OutboxUploader(outbox: outbox, configuration: configuration)
            } catch let error as OutboxError {
                throw CommandFailure("\(error)", exitCode: ExitCodes.usage)
            }
            let waiting = try outbox.stats().destinations[destination]?.pending ?? 0
            let timeout = timeout
            let outcome = try runBlocking { await uploader.flush(timeout: timeout.map(Duration.seconds)) }
            let tally = uploader.tally
            var line =
                "delivered \(Plural.count(tally.delivered, "result")) in \(Plural.count(tally.requests, "request")) (\(tally.retries) retried), \(tally.deadLettered) set aside"
            switch outcome {
            case .empty:
                if tally.delivered == 0, waiting > 0 {
                    throw CommandFailure(
                        line + "; nothing was delivered: every result was refused (anna outbox dead \(file))", exitCode: ExitCodes.failure)
                }
                printError(line)
            case let .timedOut(remaining):
                line += "; \(Plural.count(remaining, "result")) still waiting in \(file) at --timeout"
                throw CommandFailure(line, exitCode: ExitCodes.failure)
            case let .stopped(remaining, because):
                line += "; \(Plural.count(remaining, "result")) still waiting in \(file): \(OutboxRun.short(because))"
                throw CommandFailure(line, exitCode: ExitCodes.failure)
            }
        }
    }

    struct Dead: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the results set aside (one JSON line each), or requeue them with --requeue.")

        @Argument(help: "The outbox file.") var file: String
        @Flag(help: "Move them back to the end of the queue (message IDs unchanged).") var requeue = false

        func run() throws {
            let outbox = try OutboxCommand.open(file, readOnly: !requeue)
            defer { outbox.close() }
            if requeue {
                let (requeued, kept) = try outbox.requeueDeadLetters()
                printError(
                    "requeued \(Plural.count(requeued, "result"))\(kept > 0 ? "; \(kept) unreadable \(kept == 1 ? "one stays" : "ones stay")" : "")"
                )
                return
            }
            for letter in try outbox.deadLetters() {
                let line: JSONValue = [
                    "messageId": .string(letter.messageId), "session": .string(letter.session),
                    "seq": .number(Double(letter.seq)), "status": .number(Double(letter.status)),
                    "reason": .string(letter.reason), "responseBody": .string(letter.responseBody),
                    "task": letter.task.map(JSONValue.string) ?? .null, "result": .string(letter.result),
                ]
                printOutput(line.jsonText)
            }
        }
    }
}
