import CoreJS
import Foundation
import Testing

@testable import Anna

@Suite("Coverage.loadWarnings")
struct CoverageLoadWarningsTests {
    private func coverage(files: [(String, Coverage.File.Status)], missing: [String]) -> Coverage {
        let folder = "/m/task"
        let core: JSONValue = .object([
            "taskFolder": .string(folder),
            "tasks": .array([]),
            "files": .array(
                files.filter { $0.1 != .neverLoaded }.map { file, status in
                    .object(["file": .string("\(folder)/\(file)"), "status": .string(status.rawValue), "tasks": .number(0)])
                }),
            "namespaces": .array(
                missing.map { name in
                    .object([
                        "namespace": .string(name), "file": .string("\(folder)/\(name.replacingOccurrences(of: ".", with: "/")).js"),
                        "hasTaskFile": .bool(false),
                    ])
                }),
        ])
        var coverage = Coverage(core: core)
        // Files the folder holds that the core never tried (read from disk in real use).
        coverage.files += files.filter { $0.1 == .neverLoaded }.map {
            Coverage.File(file: "\(folder)/\($0.0)", status: .neverLoaded, tasks: 0, error: nil)
        }
        return coverage
    }

    @Test("a file never loaded is named next to the namespace that looks like its new name")
    func renamedClass() {
        let coverage = coverage(
            files: [("index.js", .loaded), ("NoteDetail.js", .neverLoaded), ("NoteDetailViewController.js", .missing)],
            missing: ["NoteDetailViewController", "AppDelegate"])
        #expect(coverage.loadWarnings == ["NoteDetail.js never loaded; namespace NoteDetailViewController has no file: renamed?"])
    }

    @Test("a file never loaded with no namespace like it names those of its folder, or says nobody asked")
    func unpairedFiles() {
        let lone = coverage(files: [("index.js", .loaded), ("Settings.js", .neverLoaded)], missing: [])
        #expect(lone.loadWarnings == ["Settings.js never loaded: no node's namespace asked for it"])
        let others = coverage(
            files: [("Settings.js", .neverLoaded), ("Lib/Old.js", .neverLoaded)], missing: ["Home", "Cart", "Lib.Alpha", "Profile", "About"])
        #expect(
            others.loadWarnings == [
                "Settings.js never loaded: no node's namespace asked for it (without a task file: Home, Cart, Profile and 1 more)",
                "Lib/Old.js never loaded: no node's namespace asked for it (without a task file: Lib.Alpha)",
            ])
    }

    @Test("namespaces without a task file make no line when every file loaded")
    func namespacesAlone() {
        let coverage = coverage(files: [("index.js", .loaded), ("Home.js", .loaded)], missing: ["AppDelegate", "Cart"])
        #expect(coverage.loadWarnings.isEmpty)
    }
}
