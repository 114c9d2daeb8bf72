import Foundation

/// A fresh folder under the system's temporary directory, removed when the value goes away.
public final class TemporaryFolder {
    /// The folder.
    public let url: URL
    /// The folder's path.
    public var path: String { url.path }

    /// Creates the folder with `files` (contents by path relative to the folder) and symbolic
    /// `links` (destination by path, both relative to the folder).
    public init(_ files: [String: String] = [:], links: [String: String] = [:]) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("anna-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, contents) in files { try write(name, contents) }
        for (name, destination) in links {
            try FileManager.default.createSymbolicLink(
                at: url.appendingPathComponent(name), withDestinationURL: url.appendingPathComponent(destination))
        }
    }

    deinit {
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            print("warning: could not remove the test folder \(url.path): \(error)")
        }
    }

    /// Writes `contents` to `name` (relative to the folder), creating the folders on the way.
    public func write(_ name: String, _ contents: String) throws {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: file, atomically: true, encoding: .utf8)
    }

    /// The path of `name` in the folder.
    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The contents of `name`.
    public func read(_ name: String) throws -> String { try String(contentsOfFile: file(name), encoding: .utf8) }
}

/// Runs `body` with a fresh ``TemporaryFolder`` holding `files` and `links`, removed afterwards.
public func withTemporaryFolder<Result>(
    _ files: [String: String], links: [String: String] = [:], _ body: (URL) throws -> Result
) throws -> Result {
    let folder = try TemporaryFolder(files, links: links)
    return try withExtendedLifetime(folder) { try body(folder.url) }
}
