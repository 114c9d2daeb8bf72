import CoreJS
import Foundation

/// The screenshots taken while a session was recorded, kept beside its event stream: a
/// folder of PNG files with an NDJSON index, one ``Entry`` per picture.
///
/// A picture belongs to an `ana-appeared` event: the ``Entry/appearance``-th `appear` (or
/// `ana-appeared` event) of node ``Entry/node`` in the stream, counted from 1. `anna report`
/// reads the index to place each picture on its timeline at that event's line.
///
/// ```
/// session.ndjson            the recording
/// session.screens/
///   index.ndjson            {"node":12,"appearance":1,"file":"0001.png","width":480,"height":640,"bytes":21873,"time":1700000000123}
///   0001.png
/// ```
public enum ScreenshotIndex {
    /// The index's file name inside the folder.
    public static let fileName = "index.ndjson"

    /// One picture and the event it belongs to.
    public struct Entry: Sendable, Equatable {
        /// The node whose appearance it shows.
        public var node: NodeID
        /// Which of the node's appearances in the stream, from 1.
        public var appearance: Int
        /// The PNG file's name in the folder (several entries may share one file: a window
        /// and its page appearing in one frame).
        public var file: String
        /// The picture's size in pixels.
        public var width: Int
        /// The picture's height in pixels.
        public var height: Int
        /// The file's size.
        public var bytes: Int
        /// When it was taken, in milliseconds since the epoch.
        public var time: Double

        /// An entry.
        public init(node: NodeID, appearance: Int, file: String, width: Int, height: Int, bytes: Int, time: Double) {
            self.node = node
            self.appearance = appearance
            self.file = file
            self.width = width
            self.height = height
            self.bytes = bytes
            self.time = time
        }

        /// The entry as one line of the index (without the newline).
        public var line: String {
            let fields: JSONValue = [
                "node": node.jsonValue, "appearance": .number(Double(appearance)), "file": .string(file),
                "width": .number(Double(width)), "height": .number(Double(height)), "bytes": .number(Double(bytes)),
                "time": .number(time),
            ]
            return fields.jsonText
        }

        /// Reads a line of the index.
        /// - Throws: ``EventStream/FormatError`` naming what is missing or wrong.
        public init(line: String) throws {
            let value: JSONValue
            do {
                value = try JSONValue(parsing: line)
            } catch {
                throw EventStream.FormatError("invalid JSON: \(error)")
            }
            guard let nodeValue = value["node"], let node = NodeID(json: nodeValue) else {
                throw EventStream.FormatError("field 'node' must be a node ID")
            }
            func integer(_ key: String) throws -> Int {
                guard let number = value[key]?.safeIntegerValue, number >= 0 else {
                    throw EventStream.FormatError("field '\(key)' must be a non-negative integer")
                }
                return number
            }
            guard let file = value["file"]?.stringValue, Self.isPlainFileName(file) else {
                throw EventStream.FormatError("field 'file' must name a file in the folder (no '/', not '..')")
            }
            self.init(
                node: node, appearance: try integer("appearance"), file: file, width: try integer("width"),
                height: try integer("height"), bytes: try integer("bytes"), time: value["time"]?.numberValue ?? 0)
        }

        /// Whether `name` is a file directly in the folder: an index from elsewhere may not
        /// make a report read files outside it.
        static func isPlainFileName(_ name: String) -> Bool {
            !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0")
        }
    }

    /// The folder kept beside a recording: `session.ndjson` → `session.screens`.
    public static func folder(besideRecording recording: URL) -> URL {
        recording.deletingPathExtension().appendingPathExtension("screens")
    }
}
