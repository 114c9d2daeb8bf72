import Anna
import AnnaGtk
import BenchStats
import CGtk
import Foundation

/// An analytics module with no tasks (in a temporary folder): the manager does its work for
/// every event, and no result is made.
enum BenchModule {
    static func make() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("anna-gtk-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("task"), withIntermediateDirectories: true)
        try "module.exports = require('anna').configured({ task: __dirname + '/task' });\n"
            .write(to: folder.appendingPathComponent("index.js"), atomically: true, encoding: .utf8)
        try "// no tasks\n".write(to: folder.appendingPathComponent("task/index.js"), atomically: true, encoding: .utf8)
        return folder
    }
}

/// A failed measurement.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

/// The errors a manager reports; a measurement fails on any.
final class ErrorCounter: ManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []

    var first: String? { lock.withLock { errors.first } }

    func manager(_ manager: Manager, didSend result: AnalyticsResult) {}

    func manager(_ manager: Manager, didCatch error: any Error) {
        lock.withLock { errors.append("\(error)") }
    }
}

/// Seconds taken by `body`.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func widget(_ widget: GtkWidgetPointer?) -> GtkWidgetPointer {
    guard let widget else { fatalError("GTK made no widget") }
    return widget
}

func named(_ pointer: GtkWidgetPointer?, _ name: String) -> GtkWidgetPointer {
    let made = widget(pointer)
    gtk_widget_set_name(made, name)
    return made
}

func cast<Instance>(_ widget: GtkWidgetPointer, _: Instance.Type) -> UnsafeMutablePointer<Instance> {
    UnsafeMutableRawPointer(widget).assumingMemoryBound(to: Instance.self)
}

/// A shown window `bench` holding `child`.
func presentWindow(_ child: GtkWidgetPointer, height: Int32 = 480) -> GtkWidgetPointer {
    let window = named(gtk_window_new(), "bench")
    gtk_window_set_default_size(cast(window, GtkWindow.self), 360, height)
    gtk_window_set_child(cast(window, GtkWindow.self), child)
    gtk_window_present(cast(window, GtkWindow.self))
    GtkScript.settle(milliseconds: 100)
    return window
}

func report(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
