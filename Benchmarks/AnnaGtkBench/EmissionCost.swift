import Anna
import AnnaGtk
import BenchStats
import CGtk
import Foundation

/// G1: what a hooked `clicked` emission costs GTK's thread, on top of GTK's own emission.
/// Each round times `emissions` clicks with the capture off, then on (the order alternates
/// between rounds), on a named button (its node records `touch-up-inside` and takes the focus)
/// and an unnamed one (the hook runs and finds no node). The manager is flushed between
/// rounds, untimed, so its queue never holds more than one round.
struct EmissionCost {
    var rounds: Int
    var module: URL
    var emissions = 50_000

    func run() async throws -> [[String: Any]] {
        let errors = ErrorCounter()
        let manager = Manager(moduleURL: module)
        manager.delegate = errors
        let namedButton = named(gtk_button_new_with_label("Buy"), "buy")
        let unnamed = widget(gtk_button_new_with_label("Help"))
        let box = widget(gtk_box_new(GTK_ORIENTATION_VERTICAL, 0))
        gtk_box_append(cast(box, GtkBox.self), namedButton)
        gtk_box_append(cast(box, GtkBox.self), unnamed)
        let window = presentWindow(box)
        defer { gtk_window_destroy(cast(window, GtkWindow.self)) }

        var lines: [[String: Any]] = []
        for (variant, button) in [("named", namedButton), ("unnamed", unnamed)] {
            var off: [Double] = []
            var on: [Double] = []
            for round in 0..<rounds {
                for captured in round % 2 == 0 ? [false, true] : [true, false] {
                    let capture = captured ? GtkCapture.install(manager: manager) : nil
                    let seconds = timed { for _ in 0..<emissions { GtkScript.emit("clicked", on: button) } }
                    capture?.uninstall()
                    await manager.flush()
                    if captured { on.append(seconds * 1e9 / Double(emissions)) } else { off.append(seconds * 1e9 / Double(emissions)) }
                }
            }
            if let error = errors.first { throw BenchFailure(description: "G1: the manager reported: \(error)") }
            let overhead = zip(on, off).map { $0 - $1 }
            let ratio = Stats.median(zip(on, off).map { $0 / $1 })
            let line: [String: Any] = [
                "scenario": "G1", "variant": variant, "emissions": emissions, "rounds": rounds,
                "nsPerEmissionOff": Stats.rounded(Stats.median(off), 1), "nsPerEmissionOn": Stats.rounded(Stats.median(on), 1),
                "overheadNs": Stats.rounded(Stats.median(overhead), 1), "pairs": overhead.map { Stats.rounded($0, 1) },
                "onOverOff": Stats.rounded(ratio, 2),
                "median": true, "guard": ["overheadNs"],
            ]
            report(
                "G1 \(variant) button: \(Int(Stats.median(off))) ns per clicked emission without the capture, "
                    + "\(Int(Stats.median(on))) with it: +\(Int(Stats.median(overhead))) ns, "
                    + "\(Stats.rounded(ratio, 2))× (medians of \(rounds) pairs)")
            lines.append(line)
        }
        return lines
    }
}
