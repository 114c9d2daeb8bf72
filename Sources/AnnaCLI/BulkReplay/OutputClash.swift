import Foundation

/// A file's identity: its device and inode, links followed. Two paths name the same file
/// when their identities are equal, however they are spelt (`./s.ndjson`, a link, a hard
/// link, another mount of the same folder).
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of what `path` names; `nil` when nothing is there.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

/// Refuses (exit 64, before anything is written) an output that is the event stream a
/// command reads, however the two paths are spelt: `anna run --events s.ndjson --console
/// s.ndjson` would empty the recording before reading it. Standard input (`-`) is no file.
func refuseOutputs(over events: String, _ outputs: [(option: String, path: String?)]) throws {
    guard events != "-", let stream = FileIdentity(path: events) else { return }
    for case let (option, path?) in outputs where FileIdentity(path: path) == stream {
        throw CommandFailure(
            "anna: \(option) \(path) is the event stream being read (--events \(events)); give \(option) another path (outputs never replace a recording)",
            exitCode: ExitCodes.usage)
    }
}

/// An output of `anna replay` that is one of the sessions being replayed, or would be
/// written over one: `anna replay DIR --out DIR` would replace each recording by its results.
struct OutputClash: Error, CustomStringConvertible {
    /// The option that names the output (`--out`, `--journal`, …).
    let option: String
    /// The path the run would write.
    let path: String
    /// The session it is.
    let session: SessionFile

    var description: String {
        "\(option) would write \(path), which is the session \(session.name) (\(session.path)) being replayed; "
            + "give \(option) a path that is none of the sessions (outputs never replace a recording)"
    }

    /// An output a run writes, and the option that names it.
    struct Output {
        var option: String
        var path: String
    }

    /// What a run writes: the `--out` folder, each session's output and partial file in it,
    /// the journal, the summary and the console file.
    static func outputs(
        folder: String?, sessions: [SessionFile], journal: String?, summary: String?, console: String?
    ) -> [Output] {
        var outputs: [Output] = []
        if let folder {
            outputs.append(Output(option: "--out", path: folder))
            for session in sessions {
                outputs.append(Output(option: "--out", path: SessionFileOutput.finalPath(folder: folder, session: session.name)))
                outputs.append(Output(option: "--out", path: SessionFileOutput.partialPath(folder: folder, session: session.name)))
            }
        }
        if let journal { outputs.append(Output(option: "--journal", path: journal)) }
        if let summary { outputs.append(Output(option: "--summary-json", path: summary)) }
        if let console { outputs.append(Output(option: "--console", path: console)) }
        return outputs
    }

    /// The first output that is one of `sessions` (compared by file identity, not by
    /// spelling), or `nil`.
    static func first(among outputs: [Output], sessions: [SessionFile]) -> OutputClash? {
        var byIdentity: [FileIdentity: SessionFile] = [:]
        for session in sessions {
            if let identity = FileIdentity(path: session.path) { byIdentity[identity] = session }
        }
        for output in outputs {
            if let identity = FileIdentity(path: output.path), let session = byIdentity[identity] {
                return OutputClash(option: output.option, path: output.path, session: session)
            }
        }
        return nil
    }
}
