import Anna
import AnnaGtk
import BenchStats
import CGtk
import Foundation

/// G3: a 10,000-row `GtkListView` (a signal factory's labels named `item`) paged from top to
/// bottom, a page at a time, GTK's main loop run until each page is laid out; wall time with
/// the capture on (rows bound again are reused cells: the old row's node disappears, the new
/// one's appears) over off, in interleaved rounds.
struct ListScroll {
    var rounds: Int
    var module: URL
    var rows = 10_000

    func run() async throws -> [[String: Any]] {
        let errors = ErrorCounter()
        let manager = Manager(moduleURL: module)
        manager.delegate = errors
        let model = gtk_string_list_new(nil)
        for position in 0..<rows { gtk_string_list_append(model, "Row \(position)") }
        let factory = gtk_signal_list_item_factory_new()
        for (signal, handler) in [("setup", Self.setup), ("bind", Self.bind)] {
            g_signal_connect_data(
                UnsafeMutableRawPointer(factory), signal, unsafeBitCast(handler, to: GCallback.self), nil, nil, GConnectFlags(0))
        }
        let view = named(gtk_list_view_new(gtk_no_selection_new(model), factory), "products")
        let scrolled = widget(gtk_scrolled_window_new())
        gtk_scrolled_window_set_child(OpaquePointer(scrolled), view)
        let window = presentWindow(scrolled)
        defer { gtk_window_destroy(cast(window, GtkWindow.self)) }
        let adjustment = gtk_scrolled_window_get_vadjustment(OpaquePointer(scrolled))

        var off: [Double] = []
        var on: [Double] = []
        var pages = 0
        for round in 0..<rounds {
            for captured in round % 2 == 0 ? [false, true] : [true, false] {
                gtk_adjustment_set_value(adjustment, 0)
                GtkScript.settle(milliseconds: 50)
                let capture = captured ? GtkCapture.install(manager: manager) : nil
                var turned = 0
                let seconds = timed {
                    while gtk_adjustment_get_value(adjustment) + gtk_adjustment_get_page_size(adjustment)
                        < gtk_adjustment_get_upper(adjustment) - 1
                    {
                        gtk_adjustment_set_value(adjustment, gtk_adjustment_get_value(adjustment) + gtk_adjustment_get_page_size(adjustment))
                        GtkScript.settle(milliseconds: 0)
                        turned += 1
                    }
                }
                capture?.uninstall()
                await manager.flush()
                pages = turned
                if captured { on.append(seconds) } else { off.append(seconds) }
            }
        }
        guard pages > 10 else { throw BenchFailure(description: "G3: the list turned \(pages) pages: it was not laid out") }
        if let error = errors.first { throw BenchFailure(description: "G3: the manager reported: \(error)") }
        let ratios = zip(on, off).map { $0 / $1 }
        report(
            "G3 \(rows)-row list view, \(pages) pages: \(Stats.rounded(Stats.median(off), 3)) s without the capture, "
                + "\(Stats.rounded(Stats.median(on), 3)) s with it (\(Stats.rounded(Stats.median(ratios), 2))×, median of \(rounds) pairs)")
        return [
            [
                "scenario": "G3", "variant": "rows=\(rows)", "rounds": rounds, "pages": pages,
                "secondsOff": Stats.rounded(Stats.median(off), 4), "secondsOn": Stats.rounded(Stats.median(on), 4),
                "relativeToOff": Stats.rounded(Stats.median(ratios), 3), "pairs": ratios.map { Stats.rounded($0, 3) },
                "median": true, "guard": ["relativeToOff"],
            ]
        ]
    }

    static let setup: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, item, _ in
        gtk_list_item_set_child(OpaquePointer(item), named(gtk_label_new(""), "item"))
    }

    static let bind: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, item, _ in
        guard let child = gtk_list_item_get_child(OpaquePointer(item)),
            let text = gtk_string_object_get_string(OpaquePointer(gtk_list_item_get_item(OpaquePointer(item))))
        else { return }
        gtk_label_set_text(OpaquePointer(child), text)
    }
}
