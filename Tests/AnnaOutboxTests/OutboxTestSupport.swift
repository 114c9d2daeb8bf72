import Anna
import AnnaCollector
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

extension FailureInjection {
    /// The first `times` requests answered with `status` (negative: every request), with
    /// `Retry-After: retryAfter` when given.
    static func failing(_ status: Int, times: Int = 1, retryAfter: String? = nil) -> FailureInjection {
        var failures = FailureInjection()
        failures.failStatus = status
        failures.failCount = times
        failures.retryAfter = retryAfter
        return failures
    }
}

/// A collector listening on a free loopback port for the length of a test.
final class RunningCollector: Sendable {
    let collector: Collector
    let port: Int
    private let task: Task<Void, any Error>

    var url: String { "http://127.0.0.1:\(port)/batch" }

    init(storePath: String, failures: FailureInjection = FailureInjection()) async throws {
        var configuration = CollectorConfiguration(storePath: storePath)
        configuration.failures = failures
        let collector = try Collector(configuration: configuration)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        task = Task { try await collector.run { port in continuation.yield(port) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        self.collector = collector
        self.port = port
    }

    func stop() async {
        task.cancel()
        _ = await task.result
    }

    /// The distinct message IDs stored.
    func storedIDs() throws -> Set<String> { Set(try collector.store.messages().map(\.messageId)) }
}

/// Records the back-off delays the uploader asks for and waits only a millisecond each.
final class RecordingSleeper: Sendable {
    private let delays = Locked<[Double]>([])
    var recorded: [Double] { delays.withLock { $0 } }
    var sleep: @Sendable (Duration) async throws -> Void {
        { delay in
            self.delays.withLock { $0.append(delay.inSeconds) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// Errors an outbox reported.
final class ErrorLog: Sendable {
    private let errors = Locked<[OutboxError]>([])
    var all: [OutboxError] { errors.withLock { $0 } }
    var handler: @Sendable (OutboxError) -> Void { { error in self.errors.withLock { $0.append(error) } } }
}

/// A test's folder, outbox, collector and uploader.
struct Rig {
    let folder: TemporaryFolder
    let outbox: Outbox
    let errors = ErrorLog()
    let sleeper = RecordingSleeper()

    init(configuration: OutboxConfiguration = OutboxConfiguration()) throws {
        folder = try TemporaryFolder()
        let errors = errors
        outbox = try Outbox(path: folder.file("outbox.sqlite"), configuration: configuration, onError: errors.handler)
    }

    /// Appends `count` results `{"n": i}` (or `value(i)`) under `session`, then waits
    /// until they are written unless `waiting` is false.
    func append(
        _ count: Int, session: String = "s1", from start: Int = 0, waiting: Bool = true,
        value: (Int) -> JSONValue = { ["n": .number(Double($0))] }
    ) throws {
        for index in start..<(start + count) {
            try outbox.append(
                AnalyticsResult(value: value(index), meta: ResultMeta(task: "t/e", path: "/p", event: "e")), session: session,
                time: 1_700_000_000_000 + Double(index))
        }
        if waiting { outbox.synchronize() }
    }

    func collector(_ failures: FailureInjection = FailureInjection()) async throws -> RunningCollector {
        try await RunningCollector(storePath: folder.file("collected-\(UUID().uuidString).sqlite"), failures: failures)
    }

    /// How long a test's flush may take to drain. A flush ends as soon as the outbox is empty,
    /// so the deadline only bounds a failure; it is long because the whole test process shares
    /// a few threads, and suites that compute on them can hold up a flush for a minute.
    static let drainDeadline = Duration.seconds(300)

    /// Flushes until nothing waits; when the deadline passes first, the issue names what the
    /// uploader did and what it reported.
    func expectDrained(_ uploader: OutboxUploader, sourceLocation: SourceLocation = #_sourceLocation) async {
        let outcome = await uploader.flush(timeout: Rig.drainDeadline)
        #expect(outcome == .empty, "\(uploader.tally); reported: \(errors.all.prefix(5))", sourceLocation: sourceLocation)
    }

    /// Flushes until the uploader has retried at least once, then cancels the flush: on a
    /// loaded machine a fixed deadline may pass before the first attempt is made.
    func flushUntilARetry(_ uploader: OutboxUploader) async throws -> OutboxUploader.FlushOutcome {
        let flush = Task { await uploader.flush(timeout: Self.drainDeadline) }
        while uploader.tally.retries == 0, uploader.tally.delivered == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        flush.cancel()
        return await flush.value
    }

    /// Drains the outbox to a new collector that fails as `failures` says, through an
    /// ``uploader(_:batch:timeout:configure:)`` of `batch` (and `configure`), and stops the
    /// collector: its requests and store stay readable.
    @discardableResult
    func deliver(
        to failures: FailureInjection = FailureInjection(), batch: Int = 100,
        configure: (inout UploadConfiguration) -> Void = { _ in }, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (server: RunningCollector, uploader: OutboxUploader) {
        let server = try await collector(failures)
        let uploader = try uploader(server.url, batch: batch, configure: configure)
        await expectDrained(uploader, sourceLocation: sourceLocation)
        await server.stop()
        return (server, uploader)
    }

    func uploader(
        _ url: String, batch: Int = 100, timeout: Double = 5, configure: (inout UploadConfiguration) -> Void = { _ in }
    ) throws -> OutboxUploader {
        var configuration = UploadConfiguration(url: url)
        configuration.maximumBatchCount = batch
        configuration.requestTimeout = .seconds(timeout)
        configure(&configuration)
        return try OutboxUploader(outbox: outbox, configuration: configuration, sleep: sleeper.sleep, random: { 0 })
    }
}
