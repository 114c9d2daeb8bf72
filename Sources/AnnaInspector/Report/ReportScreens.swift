import Anna
import CoreJS
import Foundation

/// The screenshots of a recorded session (see `ScreenshotIndex`), placed at the stream lines
/// of the `ana-appeared` events they belong to, with each picture inlined once as a data URL.
public struct ReportScreens: Sendable {
    /// The most bytes of pictures a report inlines; past it, later pictures are left out (said).
    public static let byteLimit = 64_000_000

    /// The report's data: `{"shots": [{line, node, name, appearance, file, width, height}], "pictures": {file: data URL}}`.
    let json: JSONValue
    /// How many entries were placed at a line.
    public let placed: Int
    /// What could not be shown, one line each (a missing file, an entry no event matches).
    public let problems: [String]

    /// Reads `folder`'s index and places its entries on `events`' lines.
    /// - Throws: ``ScreensError`` when the folder has no readable index, or the stream cannot be read.
    public init(folder: URL, events: URL) throws {
        let indexURL = folder.appendingPathComponent(ScreenshotIndex.fileName)
        let indexText: String
        do {
            indexText = try String(contentsOf: indexURL, encoding: .utf8)
        } catch {
            throw ScreensError("cannot read \(indexURL.path): \(error.localizedDescription)")
        }
        var problems: [String] = []
        var entries: [ScreenshotIndex.Entry] = []
        for (number, line) in indexText.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            do {
                entries.append(try ScreenshotIndex.Entry(line: String(line)))
            } catch {
                problems.append("\(indexURL.path):\(number + 1): \(error)")
            }
        }
        let lines = try Self.appearanceLines(in: events, wanted: Set(entries.map { Key(node: $0.node, appearance: $0.appearance) }))
        var shots: [JSONValue] = []
        var pictures: [String: JSONValue] = [:]
        var bytes = 0
        for entry in entries {
            guard let found = lines[Key(node: entry.node, appearance: entry.appearance)] else {
                problems.append(
                    "\(entry.file): no ana-appeared of node \(entry.node) (appearance \(entry.appearance)) in \(events.path); is it this session's folder?"
                )
                continue
            }
            if pictures[entry.file] == nil {
                let url = folder.appendingPathComponent(entry.file)
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    problems.append("\(url.path): cannot read the picture")
                    continue
                }
                guard data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
                    problems.append("\(url.path): not a PNG file")
                    continue
                }
                guard bytes + data.count <= Self.byteLimit else {
                    problems.append("\(url.path): left out: the report inlines at most \(Self.byteLimit) bytes of pictures")
                    continue
                }
                bytes += data.count
                pictures[entry.file] = .string("data:image/png;base64," + data.base64EncodedString())
            }
            shots.append([
                "line": .number(Double(found.line)), "node": .string(entry.node.description),
                "name": found.name.map(JSONValue.string) ?? .null, "appearance": .number(Double(entry.appearance)),
                "file": .string(entry.file), "width": .number(Double(entry.width)), "height": .number(Double(entry.height)),
            ])
        }
        json = ["shots": .array(shots), "pictures": .object(.init(uniqueKeysWithValues: pictures.sorted { $0.key < $1.key }))]
        placed = shots.count
        self.problems = problems
    }

    struct Key: Hashable {
        var node: NodeID
        var appearance: Int
    }

    /// The line of each wanted appearance in the stream, and the node's name as registered,
    /// read with the inspector's own line reader (a long stream is never held whole).
    private static func appearanceLines(in events: URL, wanted: Set<Key>) throws -> [Key: (line: Int, name: String?)] {
        guard !wanted.isEmpty else { return [:] }
        let scan = AppearanceScan(wanted: wanted)
        let ended = DispatchSemaphore(value: 0)
        let reader = StreamLineReader(
            source: .file(path: events.path, follow: false), onLines: { lines in lines.forEach(scan.take) },
            onEnd: { error in
                scan.failure = error
                ended.signal()
            })
        reader.start()
        ended.wait()
        if let failure = scan.failure {
            throw ScreensError("cannot read \(events.path): \(failure.localizedDescription)")
        }
        return scan.found
    }
}

/// What ``ReportScreens`` gathers from a stream's lines. Written on the reader's thread only,
/// read after its end is signalled.
private final class AppearanceScan: @unchecked Sendable {
    let wanted: Set<ReportScreens.Key>
    var found: [ReportScreens.Key: (line: Int, name: String?)] = [:]
    var failure: (any Error)?
    private var counts: [NodeID: Int] = [:]
    private var names: [NodeID: String] = [:]
    private var number = 0

    init(wanted: Set<ReportScreens.Key>) {
        self.wanted = wanted
    }

    func take(_ line: Data) {
        number += 1
        let record: EventStream.Record?
        do {
            record = try EventStream.parse(line: String(decoding: line, as: UTF8.self))
        } catch {
            return  // the replay reports it; such a line places no picture
        }
        guard case let .operation(operation)? = record?.command else { return }
        switch operation {
        case let .register(id, _, name, _, _, _): names[id] = name
        case let .event(id, name, _) where name == StandardEvent.appeared:
            counts[id, default: 0] += 1
            let key = ReportScreens.Key(node: id, appearance: counts[id] ?? 0)
            if wanted.contains(key) { found[key] = (number, names[id]) }
        default: break
        }
    }
}

/// Why a report's screenshots cannot be read.
public struct ScreensError: Error, CustomStringConvertible {
    /// What went wrong, with the path.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
