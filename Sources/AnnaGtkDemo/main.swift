// anna-gtk-demo: the shop of `anna-demo` as a real GTK 4 app, captured by AnnaGtk with no
// per-widget analytics code, with every result printed as one line of compact JSON.
//
//     anna-gtk-demo [--module PATH] [--record FILE [--screenshots]] [--runs N | --interactive]
//
// Without --interactive it plays the kit demo's story (open two products, add three items,
// open the cart, check out) and exits; with --runs N it plays it N times, each with a new
// manager and window, and fails unless every run gives the same results. It needs a display
// (Broadway or X11; `make run-gtk` starts one). Exit codes: 0 no analytics errors and the
// runs agree; with --screenshots, a PNG of the window each time a page appears goes beside
// the recording (FILE's name with `.screens`), for `anna report`. Exit codes: 0 no analytics errors and the
// runs agree; 1 errors were caught or a run differed; 2 a bad command line or no display.

import Anna
import AnnaGtk
import CGtk
import Foundation

var moduleURL = Bundle.module.url(forResource: "module", withExtension: nil) ?? URL(fileURLWithPath: "fixtures/demo/module")
var recordingURL: URL?
var interactive = false
var screenshots = false
var runs = 1
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--module" where !arguments.isEmpty: moduleURL = URL(fileURLWithPath: arguments.removeFirst())
    case "--record" where !arguments.isEmpty: recordingURL = URL(fileURLWithPath: arguments.removeFirst())
    case "--interactive": interactive = true
    case "--screenshots": screenshots = true
    case "--runs" where Int(arguments.first ?? "").map({ $0 > 0 }) == true: runs = Int(arguments.removeFirst()) ?? 1
    default:
        exit(usage(argument == "-h" || argument == "--help" ? 0 : 2))
    }
}
if screenshots && recordingURL == nil { exit(usage(2)) }

func usage(_ code: Int32) -> Int32 {
    let text = "usage: anna-gtk-demo [--module PATH] [--record FILE [--screenshots]] [--runs N | --interactive]\n"
    FileHandle.standardError.write(Data(text.utf8))
    return code
}
guard gtk_init_check() != 0 else {
    FileHandle.standardError.write(
        Data("anna-gtk-demo: no display: run it under X11 or Broadway (GDK_BACKEND=broadway), or use make run-gtk\n".utf8))
    exit(2)
}

/// How many top-level windows are open.
func openWindows() -> UInt32 {
    let list = gtk_window_list_toplevels()
    defer { g_list_free(list) }
    return g_list_length(list)
}

/// One run: a manager, the capture and a new window; the story (or the user, interactive).
@MainActor
func play(recordingURL: URL?) async -> (lines: [String], errors: Int) {
    let collector = CollectingDelegate(onError: { FileHandle.standardError.write(Data("anna-gtk-demo: \($0)\n".utf8)) })
    let manager = Manager(moduleURL: moduleURL, dependency: .init(recordingURL: recordingURL))
    manager.delegate = collector
    var options = GtkCapture.Options()
    if screenshots, let recordingURL {
        options.screenshots = .init(folder: ScreenshotIndex.folder(besideRecording: recordingURL))
    }
    let capture = GtkCapture.install(manager: manager, options: options)
    let shop = ShopWindow(capture: capture)
    // With pictures, each page is painted before the story goes on, as at a person's pace.
    shop.waitsForPictures = options.screenshots != nil
    if interactive {
        shop.present()
        // Until the last window is closed.
        while openWindows() > 0 { g_main_context_iteration(nil, 1) }
    } else {
        ScriptedStory(shop: shop).play()
        gtk_window_destroy(ShopWindow.cast(shop.window, GtkWindow.self))
        GtkScript.settle(milliseconds: 0)
    }
    await manager.flush()
    capture.uninstall()
    return (collector.results.map(\.value.jsonText), collector.errors.count)
}

let first = await play(recordingURL: recordingURL)
for line in first.lines { print(line) }
var failed = first.errors > 0
if runs > 1 {
    for run in 2...runs {
        let again = await play(recordingURL: nil)
        failed = failed || again.errors > 0
        if again.lines != first.lines {
            let position =
                zip(again.lines, first.lines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(again.lines.count, first.lines.count)
            FileHandle.standardError.write(
                Data(
                    ("anna-gtk-demo: run \(run) differs from run 1 at result \(position + 1): "
                        + "\(again.lines.count) results against \(first.lines.count)\n").utf8))
            failed = true
        }
    }
    FileHandle.standardError.write(Data("anna-gtk-demo: \(runs) runs, \(first.lines.count) results each\n".utf8))
}
exit(failed ? 1 : 0)
