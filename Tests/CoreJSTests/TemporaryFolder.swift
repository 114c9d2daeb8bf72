import Foundation

/// Runs `body` with a fresh temporary folder holding `files` and symbolic `links` (both keyed
/// by paths relative to the folder; a link's value is its destination, relative too), then
/// removes the folder.
func withTemporaryFolder<Result>(
    _ files: [String: String], links: [String: String] = [:], _ body: (URL) throws -> Result
) throws -> Result {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("anna-corejs-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: base) }
    for (name, contents) in files {
        let file = base.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: file, atomically: true, encoding: .utf8)
    }
    for (name, destination) in links {
        try FileManager.default.createSymbolicLink(
            at: base.appendingPathComponent(name), withDestinationURL: base.appendingPathComponent(destination))
    }
    return try body(base)
}
