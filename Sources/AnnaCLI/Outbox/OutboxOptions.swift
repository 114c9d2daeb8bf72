import Anna
import AnnaOutbox
import ArgumentParser
import CoreJS
import Foundation

extension DeliveryFormat: ExpressibleByArgument {}

/// How an uploader is set up from the command line (`--deliver URL`, format, key, headers,
/// token, gzip, limits).
struct DeliveryOptions: ParsableArguments {
    @Option(help: "The body sent: anna, segment (also RudderStack, Jitsu), posthog, amplitude, or webhook (Segment's body).")
    var format: DeliveryFormat = .anna

    @Option(name: .customLong("api-key"), help: "The vendor's key: Segment's write key, PostHog's or Amplitude's API key.")
    var apiKey: String?

    @Option(name: .customLong("header"), help: ArgumentHelp("Add a header to every request (repeatable).", valueName: "Name: value"))
    var headers: [String] = []

    @Option(name: .customLong("signing-secret"), help: "Sign each body: X-Anna-Signature: sha256=HMAC-SHA256(body, SECRET).")
    var signingSecret: String?

    @Option(name: .customLong("bearer-token"), help: "Send Authorization: Bearer TOKEN.")
    var bearerToken: String?

    @Flag(help: "Compress request bodies with gzip.")
    var gzip = false

    @Option(name: .customLong("batch-size"), help: "The most results per request (default: the format's).")
    var batchSize: Int?

    @Option(name: .customLong("batch-bytes"), help: "The most bytes per request body (default: the format's).")
    var batchBytes: Int?

    @Option(name: .customLong("request-timeout"), help: "Seconds one request may take, its answer included.")
    var requestTimeout = 30.0

    func configuration(url: String) throws -> UploadConfiguration {
        var configuration = UploadConfiguration(url: url, format: format)
        configuration.apiKey = apiKey
        configuration.headers = try headers.map(Self.header)
        configuration.signingSecret = signingSecret
        configuration.bearerToken = bearerToken
        configuration.gzip = gzip
        if let batchSize { configuration.maximumBatchCount = batchSize }
        if let batchBytes { configuration.maximumBatchBytes = batchBytes }
        configuration.requestTimeout = .seconds(requestTimeout)
        return configuration
    }

    /// `Name: value` as a header.
    static func header(_ text: String) throws -> (name: String, value: String) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex,
            !text[..<colon].contains(where: { $0.isWhitespace })
        else { throw ValidationError("--header '\(text)' is not 'Name: value'") }
        return (String(text[..<colon]), text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    func validate() throws {
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if let batchBytes, batchBytes < 1024 { throw ValidationError("--batch-bytes must be at least 1024") }
        try SecondsOption.check(requestTimeout, "--request-timeout", positive: true)
        for header in headers { _ = try Self.header(header) }
        if [.segment, .posthog, .amplitude].contains(format), apiKey == nil {
            throw ValidationError("--format \(format.rawValue) needs --api-key KEY")
        }
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

    @Option(help: ArgumentHelp("Deliver to several destinations, each with its own queue (docs/destinations.md).", valueName: "file.json"))
    var destinations: String?

    @Option(name: .customLong("user-id"), help: "The user ID results are sent with (kept in the outbox file).")
    var userId: String?

    @Option(name: .customLong("anonymous-id"), help: "The anonymous ID results are sent with (default: the file's own).")
    var anonymousId: String?

    @Option(name: .customLong("app-name"), help: "The app's name, sent in every result's context.")
    var appName: String?

    @Option(name: .customLong("app-version"), help: "The app's version, sent in every result's context.")
    var appVersion: String?

    @OptionGroup var delivery: DeliveryOptions

    func validate() throws {
        if deliver != nil || destinations != nil, outbox == nil { throw ValidationError("--deliver and --destinations need --outbox FILE") }
        if deliver != nil, destinations != nil { throw ValidationError("give --deliver URL or --destinations FILE, not both") }
        if (appName == nil) != (appVersion == nil) { throw ValidationError("--app-name and --app-version go together") }
        try SecondsOption.check(drainTimeout, "--drain-timeout")
    }

    /// Opens the outbox and starts the uploaders, when asked for.
    func start() throws -> OutboxRun? {
        guard let path = outbox else { return nil }
        var uploads: [UploadConfiguration] = []
        if let destinations {
            uploads = try DestinationsFile.load(destinations)
        } else if let deliver {
            uploads = [try delivery.configuration(url: deliver)]
        }
        for index in uploads.indices {
            // A replay sends as fast as the destination allows, not 20 results at a time.
            uploads[index].flushAt = 1
            uploads[index].flushInterval = .zero
        }
        var configuration = OutboxConfiguration()
        configuration.waitsWhenBehind = true  // a replay keeps every result, at the disk's pace
        if powerLossDurability { configuration.durability = .powerLoss }
        if !uploads.isEmpty { configuration.destinations = uploads.map(\.destination) }
        if let appName, let appVersion { configuration.app = AppInfo(name: appName, version: appVersion) }
        let run = try OutboxRun(
            path: path, configuration: configuration, session: session ?? Outbox.newSession(), uploads: uploads,
            drainTimeout: drainTimeout)
        if let anonymousId { run.outbox.identity.setAnonymousId(anonymousId) }
        if let userId { run.outbox.identity.setUserId(userId) }
        return run
    }
}

/// An outbox attached to one `anna run`: appends, uploads to each destination in the
/// background, drains at the end.
final class OutboxRun: Sendable {
    let outbox: Outbox
    let session: String
    /// One uploader per destination, each with its own queue in the file.
    private let uploaders: [OutboxUploader]
    private let uploading: [Task<Void, Never>]
    private let drainTimeout: Double
    private let appended = Locked(0)
    private let writeFailureSaid = Locked(false)

    init(path: String, configuration: OutboxConfiguration, session: String, uploads: [UploadConfiguration], drainTimeout: Double)
        throws
    {
        do {
            let standardError = StandardStreams.current.error  // the outbox reports from threads of its own
            let outbox = try Outbox(path: path, configuration: configuration) { error in
                // A refused key is the run's one closing line; everything else is said as it happens.
                if case .unauthorized = error { return }
                standardError.writeLine("\(error)")
            }
            self.outbox = outbox
            uploaders = try uploads.map { try OutboxUploader(outbox: outbox, configuration: $0) }
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
        uploading = uploaders.map { uploader in Task.detached { await uploader.run() } }
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

    /// Stops the background uploads, drains each destination for up to the drain timeout, and
    /// says in one line what is left.
    /// - Throws: exit 73 when results could not be written to the file (the count is said);
    ///   exit 1 when a destination set results aside, refused the key, or was left with
    ///   results at the deadline.
    func finish() throws {
        let uploaders = uploaders
        let uploading = uploading
        let drainTimeout = drainTimeout
        let outcomes = try runBlocking { () -> [OutboxUploader.FlushOutcome] in
            for task in uploading { task.cancel() }
            for task in uploading { await task.value }
            return await withTaskGroup(of: (Int, OutboxUploader.FlushOutcome).self) { group in
                for (index, uploader) in uploaders.enumerated() {
                    group.addTask { (index, await uploader.flush(timeout: .seconds(drainTimeout))) }
                }
                var outcomes = Array(repeating: OutboxUploader.FlushOutcome.empty, count: uploaders.count)
                for await (index, outcome) in group { outcomes[index] = outcome }
                return outcomes
            }
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
        if lost > 0 {
            throw CommandFailure(
                "outbox \(path): \(Plural.count(lost, "result")) of session \(session) could not be written and \(lost == 1 ? "is" : "are") lost (the file holds what came before; see the error above): free disk space and run again with --session \(session), which repeats the same message IDs",
                exitCode: ExitCodes.cannotCreate)
        }
        guard let stats else {
            throw CommandFailure(
                "outbox \(path): the file cannot be read back after the run (see above): anna outbox stats \(path)", exitCode: ExitCodes.cannotCreate)
        }
        if uploaders.isEmpty {
            printError("outbox \(path): \(Plural.count(stats.pending, "result")) waiting (session \(session))")
            return
        }
        var problems: [String] = []
        var delivered: [String] = []
        for (uploader, outcome) in zip(uploaders, outcomes) {
            let tally = uploader.tally
            let name = Self.name(of: uploader.configuration)
            delivered.append("\(name) \(tally.delivered) in \(Plural.count(tally.requests, "request"))")
            if tally.deadLettered > 0 {
                problems.append(
                    "\(Plural.count(tally.deadLettered, "result")) set aside as dead letters by \(name)\(tally.lastSetAside.map { ": \($0)" } ?? "") (anna outbox dead \(path))"
                )
            }
            switch outcome {
            case .empty: break
            case let .timedOut(remaining):
                problems.append(
                    "\(Plural.count(remaining, "result")) not delivered to \(name) within --drain-timeout \(drainTimeout) s\(tally.lastFailure.map { " (\($0))" } ?? ""); they stay in the file: anna outbox flush \(path)"
                )
            case let .stopped(remaining, because):
                problems.append("\(Plural.count(remaining, "result")) not delivered to \(name): \(Self.short(because))")
            }
        }
        if !problems.isEmpty {
            throw CommandFailure("outbox \(path): " + problems.joined(separator: "; "), exitCode: ExitCodes.failure)
        }
        printError(
            "outbox \(path): every result delivered (session \(session); \(delivered.joined(separator: ", ")))")
    }

    /// A destination in messages: its name, else its URL.
    static func name(of configuration: UploadConfiguration) -> String {
        configuration.destination.isEmpty ? configuration.url : configuration.destination
    }

    /// Why delivery stopped, in a few words with what to do.
    static func short(_ error: OutboxError) -> String {
        switch error {
        case let .unauthorized(status, url, _):
            return
                "\(status) \(status == 401 ? "Unauthorized" : status == 403 ? "Forbidden" : "Invalid API key") from \(url): check --api-key; they stay in the file"
        case let .formatRefused(status, url, _):
            return "\(url) refuses their format (\(status)); they stay in the file: check the URL and --format"
        default:
            return "\(error)"
        }
    }
}
