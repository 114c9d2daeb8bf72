import Anna
import AnnaCollector
import AnnaOutbox
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// The outbox file on its own: appends, limits, caps, stats, the manager's hook.
@Suite struct OutboxStoreTests {
    /// Numbers count each session's results from 0 for each opening: a message ID is a pure
    /// function of session and position, so a session appended again repeats its IDs.
    @Test func appendsAreNumberedPerSessionAndSurviveReopening() async throws {
        let rig = try Rig()
        try rig.append(3, session: "a")
        try rig.append(2, session: "b")
        rig.outbox.close()
        let reopened = try Outbox(path: rig.folder.file("outbox.sqlite"))
        try reopened.append(AnalyticsResult(value: 1), session: "a", time: 0)
        reopened.synchronize()
        #expect(try reopened.stats().pending == 6)
        let transport = CapturingTransport()
        let uploader = try OutboxUploader(
            outbox: reopened, configuration: UploadConfiguration(url: "http://127.0.0.1:9/"), transport: transport)
        #expect(await uploader.flush() == .empty)
        #expect(transport.messages.map(\.messageId) == ["a#0", "a#1", "a#2", "b#0", "b#1", "a#0"])
        // Within one opening, numbers go on once the rows that had them are gone.
        try reopened.append(AnalyticsResult(value: 2), session: "a", time: 0)
        #expect(await uploader.flush() == .empty)
        #expect(transport.messages.last?.messageId == "a#1")
    }

    @Test func aResultOverTheLimitIsRefusedAndCounted() throws {
        let rig = try Rig()
        let big = AnalyticsResult(
            value: ["blob": .string(String(repeating: "x", count: 40_000))], meta: ResultMeta(task: "t/big", path: "/", event: "e"))
        #expect(throws: OutboxError.resultTooLarge(bytes: 40_011, limit: 32_768, task: "t/big")) {
            try rig.outbox.append(big, session: "s", time: 0)
        }
        rig.outbox.synchronize()
        let stats = try rig.outbox.stats()
        #expect(stats.dropped == ["tooLarge": 1])
        #expect(stats.pending == 0)
        #expect(
            OutboxError.resultTooLarge(bytes: 40_011, limit: 32_768, task: "t/big").description.contains(
                "raise OutboxConfiguration.maximumResultBytes"))
    }

    struct CapCase: Sendable, CustomTestStringConvertible {
        var name: String
        var configure: @Sendable (inout OutboxConfiguration) -> Void
        var reason: DropReason
        var kept: Int
        var testDescription: String { name }
    }

    static let capCases: [CapCase] = [
        CapCase(name: "rows", configure: { $0.maximumRows = 40 }, reason: .rowCap, kept: 40),
        // Groups of 10 results: the cap falls inside one, which is unpacked to drop its oldest.
        CapCase(name: "rows within a group", configure: { $0.maximumRows = 45 }, reason: .rowCap, kept: 45),
        CapCase(name: "bytes", configure: { $0.maximumBytes = 60 * 200 }, reason: .byteCap, kept: 60),
        CapCase(name: "age", configure: { $0.maximumAge = .seconds(-1) }, reason: .age, kept: 0),
    ]

    @Test(arguments: capCases)
    func capsDropTheOldestAndCountThem(_ capCase: CapCase) async throws {
        var configuration = OutboxConfiguration()
        configuration.maximumRowsPerTransaction = 10
        capCase.configure(&configuration)
        let rig = try Rig(configuration: configuration)
        // Each result is 200 bytes as the outbox counts it.
        try rig.append(100) { _ in .string(String(repeating: "q", count: 200 - 120 - 2 * 2 - 20 - 2 - 3 - 2 - 1)) }
        let stats = try rig.outbox.stats()
        #expect(stats.pending == capCase.kept)
        #expect(stats.dropped[capCase.reason.rawValue] == 100 - capCase.kept)
        let transport = CapturingTransport()
        let uploader = try OutboxUploader(
            outbox: rig.outbox, configuration: UploadConfiguration(url: "http://127.0.0.1:9/"), transport: transport)
        #expect(await uploader.flush() == .empty)
        #expect(transport.messages.map(\.seq) == Array(Int64(100 - capCase.kept)..<100), "the newest are kept")
        #expect(rig.errors.all.contains { $0.description.contains(capCase.reason.rawValue) })
    }

    @Test func anOutboxThatWaitsWhenBehindKeepsEveryResult() throws {
        var configuration = OutboxConfiguration()
        configuration.maximumUnwrittenBytes = 2000
        configuration.waitsWhenBehind = true
        let rig = try Rig(configuration: configuration)
        for index in 0..<5000 {
            try rig.outbox.append(AnalyticsResult(value: .number(Double(index))), session: "s", time: 0)
        }
        rig.outbox.synchronize()
        let stats = try rig.outbox.stats()
        #expect(stats.pending == 5000)
        #expect(stats.dropped.isEmpty)
        #expect(rig.errors.all.isEmpty)
    }

    @Test func whenTheWriterFallsBehindNewResultsAreDroppedCountedAndReportedOnce() throws {
        var configuration = OutboxConfiguration()
        configuration.maximumUnwrittenBytes = 2000
        let rig = try Rig(configuration: configuration)
        var refusals = 0
        for index in 0..<5000 {
            do {
                try rig.outbox.append(AnalyticsResult(value: .number(Double(index))), session: "s", time: 0)
            } catch {
                if case .backpressure = error { refusals += 1 }
            }
        }
        rig.outbox.synchronize()
        let stats = try rig.outbox.stats()
        let dropped = stats.dropped["backpressure"] ?? 0
        #expect(stats.pending + dropped == 5000, "every result is either kept or counted")
        // One report per episode in which the writer fell behind, not one per result.
        #expect(dropped == 0 ? refusals == 0 : (refusals >= 1 && refusals <= dropped))
    }

    @Test func statsOfAFreshOutbox() throws {
        let rig = try Rig()
        #expect(try rig.outbox.stats() == OutboxStats(pending: 0, inFlight: 0, deadLetter: 0, dropped: [:], oldestAgeSeconds: 0))
        try rig.append(2)
        let stats = try rig.outbox.stats()
        #expect(stats.pending == 2 && stats.oldestAgeSeconds >= 0 && stats.oldestAgeSeconds < 60)
    }

    @Test(arguments: [(1, 0.5), (2, 1.0), (3, 2.0), (6, 16.0), (10, 256.0), (11, 300.0), (40, 300.0), (1000, 300.0)])
    func backoffDoublesFromHalfASecondToFiveMinutes(failures: Int, seconds: Double) {
        let (initial, maximum) = (Duration.milliseconds(500), Duration.seconds(300))
        #expect(RetryPolicy.backoff(failures: failures, initial: initial, maximum: maximum, jitter: 0.1, random: 0) == .seconds(seconds))
        let jittered = RetryPolicy.backoff(failures: failures, initial: initial, maximum: maximum, jitter: 0.1, random: 0.999)
        #expect(jittered >= .seconds(seconds * 0.9) && jittered < .seconds(seconds))
    }

    @Test(arguments: [
        ("Wed, 21 Oct 2015 07:28:00 GMT", 10.0), ("Wednesday, 21-Oct-15 07:28:00 GMT", 10.0), ("Wed Oct 21 07:28:00 2015", 10.0),
        ("Wed, 21 Oct 2015 07:27:00 GMT", 0.0), ("12", 12.0), (" 3 ", 3.0),
    ])
    func retryAfterForms(value: String, seconds: Double) throws {
        let now = Date(timeIntervalSince1970: 1_445_412_470)  // Wed, 21 Oct 2015 07:27:50 GMT
        #expect(RetryPolicy.retryAfter(value, now: now) == .seconds(seconds))
    }

    @Test(arguments: ["", "-1", "1.5", "tomorrow", "Wed, 32 Oct 2015 07:28:00 GMT"])
    func unreadableRetryAfter(value: String) {
        #expect(RetryPolicy.retryAfter(value) == nil)
    }

    @Test func everyResultOfAManagerReachesItsOutbox() async throws {
        let rig = try ManagedOutbox(tasks: "match('tap', (node) => ({ n: node.latestEvent().attributes.n }))")
        for n in 0..<5 { rig.screen.record("tap", with: ["n": .number(Double(n))]) }
        await rig.settle()
        #expect(rig.delegate.values.count == 5)
        let transport = CapturingTransport()
        let uploader = try OutboxUploader(
            outbox: rig.outbox, configuration: UploadConfiguration(url: "http://127.0.0.1:9/"), transport: transport)
        #expect(await uploader.flush() == .empty)
        #expect(transport.messages.map(\.messageId) == (0..<5).map { "app#\($0)" })
        #expect(transport.messages.map(\.result) == (0..<5).map { "{\"n\":\($0)}" })
        #expect(transport.messages.allSatisfy { $0.task == "tap" && $0.path == "/screen" && $0.event == "tap" })
    }

    /// An identify a task returns sets the outbox's user from the engine's own text; a result
    /// that only mentions the word does not, and the delegate sees every result all the same.
    @Test func anIdentifyATaskReturnsSetsTheUserAndAMentionDoesNot() async throws {
        let rig = try ManagedOutbox(
            tasks: """
                match('tap', (node) => ({ action: 'tap', label: 'identify-button', note: 'not an identify' }))
                match('login', (node) => ({ type: 'identify', userId: 'u-9' }))
                """)
        rig.screen.record("tap")
        await rig.settle()
        #expect(rig.outbox.identity.userId == nil, "a result that mentions identify is not one")
        rig.screen.record("login")
        await rig.settle()
        #expect(rig.outbox.identity.userId == "u-9")
        #expect(rig.delegate.values.count == 2)
        #expect(rig.delegate.values.last == ["type": "identify", "userId": "u-9"])
    }
}

/// A manager whose results go to an outbox (session `app`) and a recording delegate, with one
/// analyzer named `screen` under the application's.
private struct ManagedOutbox {
    let folder: TemporaryFolder
    let outbox: Outbox
    let manager: Manager
    let delegate = RecordingDelegate()
    let app: AppHost
    let link: ChainLink
    let screen: Analyzer

    /// `tasks`: the module's task file.
    init(tasks: String) throws {
        folder = try TemporaryFolder([
            "m/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' })",
            "m/task/index.js": tasks,
        ])
        outbox = try Outbox(path: folder.file("outbox.sqlite"))
        var dependency = Manager.Dependency()
        dependency.outbox = outbox.sink(session: "app")
        manager = Manager(moduleURL: folder.url.appendingPathComponent("m"), dependency: dependency)
        manager.delegate = delegate
        app = AppHost(manager: manager)
        link = ChainLink(next: app)
        screen = Analyzer(owner: link)
        screen.enable(naming: "screen")
    }

    /// Waits until what was recorded is delivered and written.
    func settle() async {
        await manager.flush()
        await outbox.waitUntilWritten()
    }
}

/// The application object at the top of a chain, owning the root analyzer.
final class AppHost: Responder, Analyzable, @unchecked Sendable {
    var nextResponder: (any Responder)? { nil }
    let analyzer: any Analyzing
    init(manager: Manager) { analyzer = RootAnalyzer(manager: manager) }
}

/// A responder that only links to the next one (and stands for an analyzer).
final class ChainLink: Responder, FocusPathConstituting, @unchecked Sendable {
    let next: (any Responder)?
    init(next: (any Responder)?) { self.next = next }
    var nextResponder: (any Responder)? { next }
}
