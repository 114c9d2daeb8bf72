import Anna
import CoreJS

/// Prints results as `anna run` does, one line of compact JSON each (with `meta`,
/// `{"result":…,"task":…,"path":…,"event":…,"time":…}`, `time` the milliseconds of the event
/// that produced the result, as the stream gives them), from the text the engine already wrote
/// (``ResultTexts``), into an ``OutputBuffer``.
final class ResultWriter {
    let output: OutputBuffer
    let meta: Bool
    /// Results written so far.
    private(set) var count = 0
    /// The last meta and the text that follows a result for it: `,"task":…,"event":…`.
    private var lastMeta: ResultMeta??
    private var metaTail: [UInt8] = []

    /// A writer into `output`; `meta` adds each result's task, path and event.
    init(output: OutputBuffer, meta: Bool) {
        self.output = output
        self.meta = meta
    }

    /// Writes each result as a line.
    func write(_ texts: ResultTexts) {
        count += texts.count
        texts.forEachResult { json, meta, time in
            if self.meta {
                output.append(UnsafeRawBufferPointer(start: Self.resultPrefix.utf8Start, count: Self.resultPrefix.utf8CodeUnitCount))
                output.append(json)
                appendMetaTail(for: meta)
                if let time, time.isFinite { output.append(#","time":"# + JSONValue.number(time).jsonText) }
                output.append(byte: UInt8(ascii: "}"))
            } else {
                output.append(json)
            }
            output.append(byte: UInt8(ascii: "\n"))
        }
    }

    /// Writes what is gathered (see ``OutputBuffer/flush()``).
    func flush() {
        output.flush()
    }

    private static let resultPrefix: StaticString = #"{"result":"#

    private func appendMetaTail(for meta: ResultMeta?) {
        if lastMeta != .some(meta) {
            lastMeta = .some(meta)
            let field: (String?) -> String = { $0.map { JSONValue.string($0).jsonText } ?? "null" }
            metaTail = Array(
                #","task":\#(field(meta?.task)),"path":\#(field(meta?.path)),"event":\#(field(meta?.event))"#.utf8)
        }
        metaTail.withUnsafeBytes { output.append($0) }
    }
}
