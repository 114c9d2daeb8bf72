// anna-gtk-fixture: builds a small GTK 4 UI, captures it with AnnaGtk, plays one scenario,
// and exits. The tests run it under a headless display (Broadway) and read what the manager
// recorded.
//
//     anna-gtk-fixture SCENARIO RECORDING MODULE
//
// Results print as compact JSON lines on standard output, errors on standard error.
// Exit codes: 0 ran without analytics errors; 1 errors were caught; 2 a bad command line.

import Anna
import AnnaGtk
import CGtk
import CoreJS
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: anna-gtk-fixture SCENARIO RECORDING MODULE\n".utf8))
    exit(2)
}
guard gtk_init_check() != 0 else {
    FileHandle.standardError.write(Data("anna-gtk-fixture: no display (set GDK_BACKEND and BROADWAY_DISPLAY)\n".utf8))
    exit(2)
}

let printer = CollectingDelegate(
    keeping: true, onResult: { print($0.value.jsonText) },
    onError: { FileHandle.standardError.write(Data("anna-gtk-fixture: \($0)\n".utf8)) })
let manager = Manager(
    moduleURL: URL(fileURLWithPath: arguments[2]), dependency: .init(recordingURL: URL(fileURLWithPath: arguments[1])))
manager.delegate = printer
guard let scenario = Scenario(rawValue: arguments[0]) else {
    FileHandle.standardError.write(Data("anna-gtk-fixture: no scenario \(arguments[0])\n".utf8))
    exit(2)
}
let capture = GtkCapture.install(manager: manager, options: scenario.options(recording: URL(fileURLWithPath: arguments[1])))
scenario.play(capture: capture)
GtkScript.settle()
await manager.flush()
exit(printer.errors.isEmpty ? 0 : 1)
