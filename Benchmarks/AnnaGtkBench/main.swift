// anna-gtk-bench: what AnnaGtk costs a GTK 4 app, measured in one process under a headless
// display (`.ci/with-broadway .build/release/anna-gtk-bench`). Prints one JSON line per figure
// (`anna-bench compare` reads them) and a table on standard error.
//
//     anna-gtk-bench [--rounds N] [--json-out FILE] [--only G1|G2|G3]
//
//   G1 emission: ns per `clicked` emission with the capture installed vs not, interleaved
//      rounds, for a named button (an event recorded) and an unnamed one (the hook alone).
//   G2 snapshot: ms for `Manager.snapshot` of a live window of 1,000 named widgets.
//   G3 scroll:   a 10,000-row GtkListView paged from top to bottom, capture on vs off.
//
// Exit codes: 0 measured; 1 a measurement failed; 2 a bad command line or no display.

import Anna
import AnnaGtk
import CGtk
import Foundation

var rounds = 5
var jsonOut: String?
var only: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--rounds" where Int(arguments.first ?? "").map({ $0 > 0 }) == true: rounds = Int(arguments.removeFirst()) ?? rounds
    case "--json-out" where !arguments.isEmpty: jsonOut = arguments.removeFirst()
    case "--only" where ["G1", "G2", "G3"].contains(arguments.first ?? ""): only = arguments.removeFirst()
    default:
        FileHandle.standardError.write(Data("usage: anna-gtk-bench [--rounds N] [--json-out FILE] [--only G1|G2|G3]\n".utf8))
        exit(argument == "-h" || argument == "--help" ? 0 : 2)
    }
}
guard gtk_init_check() != 0 else {
    FileHandle.standardError.write(Data("anna-gtk-bench: no display: run it under .ci/with-broadway\n".utf8))
    exit(2)
}

let module: URL
do {
    module = try BenchModule.make()
} catch {
    FileHandle.standardError.write(Data("anna-gtk-bench: \(error)\n".utf8))
    exit(1)
}
var lines: [[String: Any]] = []
do {
    if only == nil || only == "G1" { lines += try await EmissionCost(rounds: rounds, module: module).run() }
    if only == nil || only == "G2" { lines += try await SnapshotCost(rounds: rounds, module: module).run() }
    if only == nil || only == "G3" { lines += try await ListScroll(rounds: rounds, module: module).run() }
} catch {
    FileHandle.standardError.write(Data("anna-gtk-bench: \(error)\n".utf8))
    exit(1)
}
var text = ""
for line in lines {
    let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
    text += String(decoding: data, as: UTF8.self) + "\n"
}
print(text, terminator: "")
if let jsonOut {
    do {
        try text.write(toFile: jsonOut, atomically: true, encoding: .utf8)
    } catch {
        FileHandle.standardError.write(Data("anna-gtk-bench: \(jsonOut): \(error)\n".utf8))
        exit(1)
    }
}
