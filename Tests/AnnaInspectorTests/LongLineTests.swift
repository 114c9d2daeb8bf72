import Anna
import AnnaInspector
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// A line longer than the reader takes (16 MiB, as `anna run`): cut there and refused as
/// malformed, said once, and the lines after it read as usual.
@Suite("A line past 16 MiB is cut, said, and the stream goes on", .timeLimit(.minutes(2)))
struct LongLineTests {
    @Test func aLongLineIsCutAndTheNextLinesAreRead() async throws {
        let folder = try TemporaryFolder()
        try writeModule(in: folder, tasks: "match('screen/tap', (node) => node.latestEvent().attributes.n)")
        // 17 MiB of one string value, read in many 64 KiB pieces.
        let long = #"{"op":"event","id":2,"name":"tap","properties":{"s":""# + String(repeating: "x", count: 17 << 20) + #""}}"#
        let text =
            FollowRotationTests.head.joined(separator: "\n") + "\n" + FollowRotationTests.tap(1) + long + "\n"
            + FollowRotationTests.tap(2)
        try folder.write("s.ndjson", text)
        let configuration = AnalyticsEngine.Configuration(moduleURL: folder.url, console: Console(output: MemoryOutputSink()))
        let notices = Notices()
        let results = Locked<[JSONValue]>([])
        let session = StreamSession(
            source: .file(path: folder.file("s.ndjson"), follow: false), notice: { notices.add($0) },
            onResult: { result in results.withLock { $0.append(result.value) } },
            makeEngine: { try AnalyticsEngine(configuration: configuration) })
        try session.start()
        defer { session.stop() }
        await session.waitUntilHandled()
        #expect(session.lineCount == 5)
        #expect(results.withLock { $0 } == [1, 2])
        #expect(
            notices.lines == [
                "\(folder.file("s.ndjson")): a line is longer than 16 MiB; it is cut there and the rest of it skipped (the line is refused as malformed)"
            ])
    }
}
