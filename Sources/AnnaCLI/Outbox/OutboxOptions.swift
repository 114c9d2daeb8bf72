import Anna
import AnnaOutbox
import ArgumentParser
import CoreJS
import Foundation

/// How an uploader is set up from the command line (`--deliver URL`, token, gzip, limits).
struct DeliveryOptions: ParsableArguments {
    @Option(name: .customLong("bearer-token"), help: "Send Authorization: Bearer TOKEN.")
    var bearerToken: String?

    @Flag(help: "Compress request bodies with gzip.")
    var gzip = false

    @Option(name: .customLong("batch-size"), help: "The most results per request.")
    var batchSize = 100

    @Option(name: .customLong("batch-bytes"), help: "The most bytes per request body.")
    var batchBytes = 500 * 1024

    @Option(name: .customLong("request-timeout"), help: "Seconds one request may take, its answer included.")
    var requestTimeout = 30.0

    func configuration(url: String) -> UploadConfiguration {
        var configuration = UploadConfiguration(url: url)
        configuration.bearerToken = bearerToken
        configuration.gzip = gzip
        configuration.maximumBatchCount = batchSize
        configuration.maximumBatchBytes = batchBytes
        configuration.requestTimeout = .seconds(requestTimeout)
        return configuration
    }

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
        guard batchBytes >= 1024 else { throw ValidationError("--batch-bytes must be at least 1024") }
        try SecondsOption.check(requestTimeout, "--request-timeout", positive: true)
    }
}

/// `anna run`'s outbox options: append every result to `--outbox FILE`, upload to
/// `--deliver URL` while running, and drain for up to `--drain-timeout` seconds at the end.
struct OutboxRunOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Append every result to this outbox file (SQLite).", valueName: "file"))
    var outbox: String?

    @Option(help: ArgumentHelp("Upload the outbox to this URL while running (needs --outbox).", valueName: "url"))
    var deliver: String?

    @Option(name: .customLong("drain-timeout"), help: "Seconds to keep uploading after the stream ends.")
    var drainTimeout = 30.0

    @Option(
        help: ArgumentHelp(
            "The session name results are appended under (default: a new random one; repeat it to replay a session "
                + "with the same message IDs; a name the file already holds is said once)."))
    var session: String?

    @Flag(name: .customLong("power-loss-durability"), help: "Count a result as saved only once fsynced.")
    var powerLossDurability = false

    @OptionGroup var delivery: DeliveryOptions

    func validate() throws {
        if deliver != nil, outbox == nil { throw ValidationError("--deliver needs --outbox FILE") }
        try SecondsOption.check(drainTimeout, "--drain-timeout")
    }

    /// Opens the outbox and starts the uploader, when asked for.
    func start() throws -> OutboxRun? {
        guard let path = outbox else { return nil }
        var configuration = OutboxConfiguration()
        configuration.waitsWhenBehind = true  // a replay keeps every result, at the disk's pace
        if powerLossDurability { configuration.durability = .powerLoss }
        return try OutboxRun(
            path: path, configuration: configuration, session: session ?? Outbox.newSession(),
            upload: deliver.map(delivery.configuration(url:)), drainTimeout: drainTimeout)
    }
}

/// An outbox attached to one `anna run`: appends, uploads in the background, drains at the end.
final class OutboxRun: Sendable {
    let outbox: Outbox
    let session: String
    private let uploader: OutboxUploader?
    private let uploading: Task<Void, Never>?
    private let drainTimeout: Double
    private let appended = Locked(0)
    private let writeFailureSaid = Locked(false)

    init(path: String, configuration: OutboxConfiguration, session: String, upload: UploadConfiguration?, drainTimeout: Double)
        throws
    {
        do {
            let standardError = StandardStreams.current.error  // the outbox reports from threads of its own
            let outbox = try Outbox(path: path, configuration: configuration) { standardError.writeLine("\($0)") }
            self.outbox = outbox
            uploader = try upload.map { try OutboxUploader(outbox: outbox, configuration: $0) }
        } catch let error as OutboxError {
            let exitCode =
                switch error {
                case .notAnOutbox: ExitCodes.noInput
                case .invalidURL: ExitCodes.usage
                default: ExitCodes.cannotCreate
                }
            throw CommandFailure("\(error)", exitCode: exitCode)
        }
        self.session = session
        self.drainTimeout = drainTimeout
        uploading = uploader.map { uploader in Task.detached { await uploader.run() } }
    }

    /// Appends `result` (a refusal is reported on standard error, and counted in the outbox).
    func append(_ result: AnalyticsResult) {
        do {
            try outbox.append(result, session: session, time: result.time ?? Date().timeIntervalSince1970 * 1000)
            appended.withLock { $0 += 1 }
        } catch {
            if case .writeFailed = error {
                // Said once here; the count is in the summary at the end.
                guard
                    !writeFailureSaid.withLock({ said in
                        defer { said = true }
                        return said
                    })
                else { return }
            }
            printError("\(error)")
        }
    }

    /// Appends each of `texts` (as ``append(_:)-(AnalyticsResult)`` does).
    func append(_ texts: ResultTexts) {
        texts.forEachResult { json, meta, time in
            do {
                let value = try JSONValue(parsingUTF8: json.assumingMemoryBound(to: UInt8.self))
                append(AnalyticsResult(value: value, meta: meta, time: time))
            } catch {
                printError("a result could not be read back for the outbox, so it was not appended: \(error)")
            }
        }
    }

    /// Stops the background upload, drains for up to the drain timeout, and says in one line
    /// what is left.
    /// - Throws: exit 73 when results could not be written to the file (the count is said);
    ///   exit 1 when delivering, some were left undelivered at the deadline or none was delivered.
    func finish() throws {
        let uploader = uploader
        let uploading = uploading
        let drainTimeout = drainTimeout
        let outcome = try runBlocking { () -> OutboxUploader.FlushOutcome? in
            uploading?.cancel()
            await uploading?.value
            guard let uploader else { return nil }
            return await uploader.flush(timeout: .seconds(drainTimeout))
        }
        // What is still unwritten here gets one more try in `close()`: only `lostCount` is lost.
        _ = outbox.drain(before: .now + .seconds(max(drainTimeout, 1)))
        let stats: OutboxStats?
        do {
            stats = try outbox.stats()
        } catch {
            printError("\(error)")
            stats = nil
        }
        outbox.close()
        let path = outbox.path
        let lost = outbox.lostCount
        let appended = appended.withLock { $0 }
        if lost > 0 {
            throw CommandFailure(
                "outbox \(path): \(Plural.count(lost, "result")) of session \(session) could not be written and \(lost == 1 ? "is" : "are") lost (the file holds what came before; see the error above): free disk space and run again with --session \(session), which repeats the same message IDs",
                exitCode: ExitCodes.cannotCreate)
        }
        guard let stats else {
            throw CommandFailure(
                "outbox \(path): the file cannot be read back after the run (see above): anna outbox stats \(path)", exitCode: ExitCodes.cannotCreate)
        }
        let tally = uploader?.tally
        let delivered =
            tally.map { "delivered \(Plural.count($0.delivered, "result")) in \(Plural.count($0.requests, "request"))" } ?? ""
        switch outcome {
        case nil:
            printError("outbox \(path): \(Plural.count(stats.pending, "result")) waiting (session \(session))")
        case .empty?:
            if let tally, tally.delivered == 0, appended > 0 {
                throw CommandFailure(
                    "outbox \(path): nothing delivered: \(Plural.count(tally.deadLettered, "result")) set aside as refused (session \(session)): anna outbox dead \(path)",
                    exitCode: ExitCodes.failure)
            }
            printError(
                "outbox \(path): every result delivered (session \(session); \(Plural.count(stats.deadLetter, "dead letter")))")
        case let .timedOut(remaining)?:
            throw CommandFailure(
                "outbox \(path): \(Plural.count(remaining, "result")) not delivered within --drain-timeout \(drainTimeout) s (\(delivered)); they stay in the file: anna outbox flush \(path) --deliver URL",
                exitCode: ExitCodes.failure)
        case let .stopped(remaining, _)?:
            throw CommandFailure(
                "outbox \(path): \(Plural.count(remaining, "result")) not delivered: the collector refuses their format (\(delivered)); they stay in the file: anna outbox flush \(path) --deliver URL once the URL is right",
                exitCode: ExitCodes.failure)
        }
    }
}
