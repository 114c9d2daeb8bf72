import Anna
import AnnaGtk
import BenchStats
import CGtk
import Foundation

/// G2: `Manager.snapshot` of a live window of 1,000 named widgets (a list box of 1,000 rows
/// named `row`, in a scrolled window: every row is mapped, so every one is a node).
struct SnapshotCost {
    var rounds: Int
    var module: URL
    var widgets = 1_000

    func run() async throws -> [[String: Any]] {
        let errors = ErrorCounter()
        let manager = Manager(moduleURL: module)
        manager.delegate = errors
        let capture = GtkCapture.install(manager: manager)
        defer { capture.uninstall() }
        let list = named(gtk_list_box_new(), "list")
        for position in 0..<widgets {
            let row = named(gtk_list_box_row_new(), "row")
            gtk_list_box_row_set_child(cast(row, GtkListBoxRow.self), gtk_label_new("Row \(position)"))
            gtk_list_box_append(OpaquePointer(list), row)
        }
        let scrolled = widget(gtk_scrolled_window_new())
        gtk_scrolled_window_set_child(OpaquePointer(scrolled), list)
        let window = presentWindow(scrolled)
        defer { gtk_window_destroy(cast(window, GtkWindow.self)) }
        await manager.flush()

        var milliseconds: [Double] = []
        var size = 0
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            let snapshot = try await manager.snapshot(format: .json)
            let elapsed = ContinuousClock.now - start
            milliseconds.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
            size = snapshot.utf8.count
        }
        let snapshot = try await manager.snapshot(format: .json)
        let rows = snapshot.components(separatedBy: "\"row\"").count - 1
        guard rows >= widgets else {
            throw BenchFailure(description: "G2: the snapshot names \(rows) rows, not \(widgets): the capture missed widgets")
        }
        if let error = errors.first { throw BenchFailure(description: "G2: the manager reported: \(error)") }
        report("G2 snapshot of \(widgets) named widgets: \(Stats.rounded(Stats.median(milliseconds), 2)) ms (median of \(rounds)), \(size) bytes")
        return [
            [
                "scenario": "G2", "variant": "widgets=\(widgets)", "rounds": rounds, "bytes": size,
                "snapshotMs": Stats.rounded(Stats.median(milliseconds), 3), "allRuns": milliseconds.map { Stats.rounded($0, 3) },
                "median": true, "guard": ["snapshotMs"],
            ]
        ]
    }
}
