// anna-demo: a small shop app built from AnnaKit, driven through a scripted session, with
// every analytics result printed as one line of compact JSON.
//
//     swift run anna-demo [--module PATH] [--visits N] [--record FILE]
//
// Exit codes: 0 when the session ran without analytics errors; 1 when errors were caught
// (printed on standard error); 2 for a bad command line or a missing module.

import Anna
import AnnaKit
import Foundation

let options: DemoOptions
do {
    options = try DemoOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch .helpRequested {
    print(DemoOptions.usage)
    exit(0)
} catch {
    standardError("anna-demo: \(error)")
    exit(2)
}

let printer = ResultPrinter()
let manager = Manager(moduleURL: options.moduleURL, dependency: .init(recordingURL: options.recordingURL))
manager.delegate = printer
let application = Application(manager: manager)

ShopSession(application: application).run(extraVisits: options.extraVisits)
await manager.flush()
exit(printer.errorCount == 0 ? 0 : 1)
