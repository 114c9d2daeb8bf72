import Anna
import AnnaTestSupport
import Foundation

/// What the fixture's manager recorded in one scenario, read back from its recording: each
/// event with the path of its node (`/shop/home/products/cell[1]`), in order.
struct CapturedSession {
    struct Event: Equatable, CustomStringConvertible {
        var node: Int
        var path: String
        /// Which appearance of its node this is, for `ana-appeared` (from 1).
        var appearance = 0
        var name: String
        var properties: [String: String]

        var description: String { "\(path) \(name)" + (properties.isEmpty ? "" : " \(properties)") }
    }

    var events: [Event] = []
    var deregistered: [Int] = []
    var results: [String]
    var output: ChildProcess.Output
    /// The screenshot index beside the recording, when the scenario took pictures.
    var screens: [ScreenshotIndex.Entry] = []
    /// The pictures' files by name.
    var pictures: [String: Data] = [:]

    /// The path of the node each screenshot shows and which of its appearances, with the file.
    var screenPaths: [(path: String, appearance: Int, file: String)] {
        screens.map { entry in
            let path = events.first { $0.node == entry.node.owner && entry.node.keys.isEmpty && $0.name == "ana-appeared" }?.path ?? "?"
            return (path, entry.appearance, entry.file)
        }
    }

    /// `path name` of each event, in order (`/shop/home ana-appeared`).
    var lines: [String] { events.map { "\($0.path) \($0.name)" } }

    /// The tasks of the fixture's module: a row's selection and the page opened from it.
    static let tasks = """
        match('shop/home/products/cell/did-select', (node) => ({ event: 'select', index: node.index, path: node.path }));
        match('cell/detail/ana-appeared', (node) => ({ event: 'detail', from: node.parentNode.index }));

        """

    /// Plays `scenario` in the fixture under a fresh Broadway display.
    static func play(_ scenario: String) async throws -> CapturedSession {
        try await Broadway.with { environment in
            let folder = try TemporaryFolder([
                "module/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' });\n",
                "module/task/index.js": Self.tasks,
            ])
            let recording = folder.file("recording.ndjson")
            let output = try await ChildProcess.run(
                executable: BuildProducts.executable("anna-gtk-fixture"),
                arguments: [scenario, recording, folder.file("module")], environment: environment, timeout: 60)
            var session = CapturedSession(results: output.stdoutLines, output: output)
            if FileManager.default.fileExists(atPath: recording) { try session.read(try folder.read("recording.ndjson")) }
            let screens = ScreenshotIndex.folder(besideRecording: URL(fileURLWithPath: recording))
            if let index = FileManager.default.contents(atPath: screens.appendingPathComponent(ScreenshotIndex.fileName).path) {
                session.screens = try String(decoding: index, as: UTF8.self).split(separator: "\n").map {
                    try ScreenshotIndex.Entry(line: String($0))
                }
                for name in try FileManager.default.contentsOfDirectory(atPath: screens.path) where name.hasSuffix(".png") {
                    session.pictures[name] = FileManager.default.contents(atPath: screens.appendingPathComponent(name).path)
                }
            }
            return session
        }
    }

    private mutating func read(_ text: String) throws {
        var paths: [Int: String] = [:]
        for line in text.split(separator: "\n") {
            guard let op = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            switch op["op"] as? String {
            case "register":
                guard let id = op["id"] as? Int, let name = op["name"] as? String else { continue }
                let parent = (op["parent"] as? Int).flatMap { paths[$0] } ?? ""
                let index = (op["index"] as? Int).map { "[\($0)]" } ?? ""
                paths[id] = name == "__root__" ? "" : parent + "/" + name + index
            case "deregister":
                if let id = op["id"] as? Int { deregistered.append(id) }
            case "event":
                guard let id = op["id"] as? Int, let name = op["name"] as? String else { continue }
                let properties = (op["properties"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
                var event = Event(node: id, path: paths[id] ?? "?", name: name, properties: properties)
                if name == "ana-appeared" { event.appearance = events.filter { $0.node == id && $0.name == name }.count + 1 }
                events.append(event)
            default: continue
            }
        }
    }
}
