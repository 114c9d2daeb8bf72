import AnnaTestSupport
import Foundation
import Testing

/// The shop as a real GTK 4 app (`anna-gtk-demo`), under Broadway, against the kit demo.
@Suite("GTK demo", .serialized)
struct GtkDemoTests {
    @Test("the scripted story, played 100 times in one process, gives the same results every run")
    func hundredRuns() async throws {
        let output = try await Broadway.with { environment in
            try await ChildProcess.run(
                executable: BuildProducts.executable("anna-gtk-demo"), arguments: ["--runs", "100"], environment: environment,
                timeout: 300)
        }
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderrLines.last == "anna-gtk-demo: 100 runs, 33 results each", "\(output.stderr)")
        #expect(output.stdoutLines.count == 33)
    }

    @Test("its recording replayed by anna gives the app's results; the kit demo's module gives the kit's, in GTK's order and with every row shown")
    func sameStoryAsTheKit() async throws {
        let folder = try TemporaryFolder()
        let recording = folder.file("session.ndjson")
        let app = try await Broadway.with { environment in
            try await ChildProcess.run(
                executable: BuildProducts.executable("anna-gtk-demo"), arguments: ["--record", recording], environment: environment,
                timeout: 120)
        }
        #expect(app.status == 0, "\(app.stderr)")
        let module = RepositoryFixtures.demo.appendingPathComponent("module").path
        let replay = try await ChildProcess.run(
            executable: BuildProducts.executable("anna"), arguments: ["run", "--events", recording, "--module", module], timeout: 120)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdoutLines == app.stdoutLines)

        // The kit shows 8 of the 10 rows (4, then 4 more after a scroll); a GtkListBox maps all
        // of its rows, so GTK adds the impressions of the last two. The rest is the same set:
        // GTK reports a page's appearance before its children's, the kit a controller's after.
        let kit = try await ChildProcess.run(executable: BuildProducts.executable("anna-demo"), arguments: [], timeout: 120)
        #expect(kit.status == 0, "\(kit.stderr)")
        let extra = [
            #"{"event":"view_item_list","product":"sku-pin","position":8}"#,
            #"{"event":"view_item_list","product":"sku-kit","position":9}"#,
        ]
        #expect(app.stdoutLines.sorted() == (kit.stdoutLines + extra).sorted())
        #expect(app.stdoutLines != kit.stdoutLines + extra, "the order is GTK's")
    }
}
