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

    @Option(name: .customLong("request-timeout"), help: "Seconds one request may take.")
    var requestTimeout = 30.0

    func configuration(url: String) -> UploadConfiguration {
        var configuration = UploadConfiguration(url: url)
        configuration.bearerToken = bearerToken
        configuration.gzip = gzip
        configuration.maximumBatchCount = batchSize
        configuration.maximumBatchBytes = batchBytes
        configuration.requestTimeoutSeconds = requestTimeout
        return configuration
    }

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
        guard batchBytes >= 1024 else { throw ValidationError("--batch-bytes must be at least 1024") }
        guard requestTimeout > 0 else { throw ValidationError("--request-timeout must be positive") }
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

    @Option(help: "The session name results are appended under (default: a new random one; repeat it to replay a session with the same message IDs).")
    var session: String?

    @Flag(name: .customLong("power-loss-durability"), help: "Count a result as saved only once fsynced.")
    var powerLossDurability = false

    @OptionGroup var delivery: DeliveryOptions

    func validate() throws {
        if deliver != nil, outbox == nil { throw ValidationError("--deliver needs --outbox FILE") }
        guard drainTimeout >= 0 else { throw ValidationError("--drain-timeout must not be negative") }
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

    init(path: String, configuration: OutboxConfiguration, session: String, upload: UploadConfiguration?, drainTimeout: Double)
        throws
    {
        do {
            let outbox = try Outbox(path: path, configuration: configuration) { printError("\($0)") }
            self.outbox = outbox
            uploader = try upload.map { try OutboxUploader(outbox: outbox, configuration: $0) }
        } catch {
            printError("\(error)")
            throw ExitCodes.cannotCreate
        }
        self.session = session
        self.drainTimeout = drainTimeout
        uploading = uploader.map { uploader in Task.detached { await uploader.run() } }
    }

    /// Appends `result` (a refusal is reported on standard error, and counted in the outbox).
    func append(_ result: AnalyticsResult) {
        do {
            try outbox.append(result, session: session, time: Date().timeIntervalSince1970 * 1000)
        } catch {
            printError("\(error)")
        }
    }

    /// Appends each of `texts` (as ``append(_:)-(AnalyticsResult)`` does).
    func append(_ texts: ResultTexts) {
        texts.forEachResult { json, meta in
            do {
                let value = try JSONValue(parsingUTF8: json.assumingMemoryBound(to: UInt8.self))
                append(AnalyticsResult(value: value, meta: meta))
            } catch {
                printError("a result could not be read back for the outbox, so it was not appended: \(error)")
            }
        }
    }

    /// Stops the background upload, drains for up to the drain timeout, and says what is left.
    func finish() throws {
        let uploader = uploader
        let uploading = uploading
        let drainTimeout = drainTimeout
        let outcome = try runBlocking { () -> OutboxUploader.FlushOutcome? in
            uploading?.cancel()
            await uploading?.value
            guard let uploader else { return nil }
            return await uploader.flush(timeoutSeconds: drainTimeout)
        }
        outbox.synchronize()
        let stats = try outbox.stats()
        outbox.close()
        switch outcome {
        case nil:
            printError("outbox \(outbox.path): \(stats.pending) results waiting (session \(session))")
        case .empty?:
            printError("outbox \(outbox.path): every result delivered (session \(session); \(stats.deadLetter) dead letters)")
        case let .timedOut(remaining)?:
            printError(
                "outbox \(outbox.path): \(remaining) results not delivered within --drain-timeout \(drainTimeout) s; they stay in the file: anna outbox flush \(outbox.path) --deliver URL"
            )
        }
    }
}
