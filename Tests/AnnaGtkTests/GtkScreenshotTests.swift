import Foundation
import Testing

/// Screenshots of named windows and pages, taken by AnnaGtk under Broadway.
@Suite("GTK screenshots", .serialized)
struct GtkScreenshotTests {
    @Test("a named window's, stack page's and notebook page's appearance is pictured once GTK paints it")
    func pictures() async throws {
        let session = try await CapturedSession.play("screens")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        #expect(!session.output.stderr.contains("AnnaGtk:"), "\(session.output.stderr)")
        // A window and its page appearing in one frame share one picture.
        let expected: [(String, Int, String)] = [
            ("/shop", 1, "0001.png"), ("/shop/home", 1, "0001.png"), ("/shop/detail", 1, "0002.png"),
            ("/tabs", 1, "0003.png"), ("/tabs/notebook/first", 1, "0003.png"), ("/tabs/notebook/second", 1, "0004.png"),
        ]
        #expect(session.screenPaths.map { "\($0.path) \($0.appearance) \($0.file)" } == expected.map { "\($0.0) \($0.1) \($0.2)" })
        #expect(session.pictures.keys.sorted() == ["0001.png", "0002.png", "0003.png", "0004.png"])
        for entry in session.screens {
            let png = try #require(session.pictures[entry.file])
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(entry.file) is a PNG")
            #expect(entry.bytes == png.count)
            #expect(Self.size(of: png) == (entry.width, entry.height), "\(entry.file) is \(entry.width)×\(entry.height)")
            #expect(entry.width > 50 && entry.height > 50)
        }
        // Another page shows another picture.
        #expect(session.pictures["0001.png"] != session.pictures["0002.png"])
        #expect(session.pictures["0003.png"] != session.pictures["0004.png"])
        // The notebook's pages appear and disappear as they are shown (GTK maps the new page
        // before it unmaps the old one).
        let tabs = session.lines.filter { $0.hasPrefix("/tabs/notebook/") && !$0.contains("/text") }
        #expect(tabs == ["/tabs/notebook/first ana-appeared", "/tabs/notebook/second ana-appeared", "/tabs/notebook/first ana-disappeared"])
    }

    @Test("libadwaita's view stack: its pages appear and disappear as they are shown, each pictured")
    func viewStack() async throws {
        let session = try await CapturedSession.play("viewStack")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        #expect(!session.output.stderr.contains("AnnaGtk:"), "\(session.output.stderr)")
        let pages = session.lines.filter { !$0.contains("/text ") }
        #expect(
            pages == [
                "/views ana-appeared", "/views/sections ana-appeared", "/views/sections/inbox ana-appeared",
                "/views/sections/inbox ana-disappeared", "/views/sections/sent ana-appeared",
            ])  // a view stack hides the old page first (a GtkStack shows the new one first)
        #expect(
            session.screenPaths.map { "\($0.path) \($0.file)" } == [
                "/views 0001.png", "/views/sections/inbox 0001.png", "/views/sections/sent 0002.png",
            ])
        #expect(session.pictures["0001.png"] != session.pictures["0002.png"])
    }

    @Test("past the count limit no picture is taken, and it is said once")
    func countLimit() async throws {
        let session = try await CapturedSession.play("screensLimited")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        #expect(session.screenPaths.map(\.path) == ["/shop", "/shop/home"])
        #expect(session.pictures.keys.sorted() == ["0001.png"])
        let said = session.output.stderr.components(separatedBy: "AnnaGtk: screenshots stopped at 1 (the count limit)").count - 1
        #expect(said == 1, "\(session.output.stderr)")
        // The page shown after the limit still appears: only its picture is missing.
        #expect(session.lines.contains("/shop/detail ana-appeared"))
    }

    /// A PNG's width and height, from its header chunk.
    static func size(of png: Data) -> (Int, Int) {
        let bytes = [UInt8](png.prefix(24))
        guard bytes.count == 24 else { return (0, 0) }
        func integer(at offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (integer(at: 16), integer(at: 20))
    }
}
