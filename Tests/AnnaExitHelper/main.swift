// A child process for the exit tests (AnnaTests.ExitDrainTests): records through a manager,
// then ends the process without calling flush().
//   anna-exit-helper return N MODULE RECORDING OUTBOX   records N `tap` events, returns from main
//   anna-exit-helper exit N MODULE RECORDING OUTBOX     records N `tap` events, calls exit(0)
//   anna-exit-helper task N MODULE RECORDING OUTBOX     records (paused) N events, then a snapshot
//                                                       whose completion (on the script queue)
//                                                       calls exit(0), then N more events it never
//                                                       runs; then resumes
//   anna-exit-helper count OUTBOX                       prints how many results OUTBOX holds
import Anna
import AnnaOutbox
import CoreJS
import Dispatch
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("anna-exit-helper: \(message)\n".utf8))
    exit(2)
}

/// The application object, owning the root analyzer.
final class Application: Responder, Analyzable, @unchecked Sendable {
    var nextResponder: (any Responder)? { nil }
    let analyzer: any Analyzing
    init(manager: Manager) { analyzer = RootAnalyzer(manager: manager) }
}

/// A screen under the application.
final class Screen: Responder, FocusPathConstituting, @unchecked Sendable {
    let application: Application
    init(application: Application) { self.application = application }
    var nextResponder: (any Responder)? { application }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: return|exit|task N MODULE RECORDING OUTBOX | count OUTBOX") }

if arguments[1] == "count" {
    do {
        let outbox = try Outbox(path: arguments[2])
        print(try outbox.stats().pending)
        outbox.close()
    } catch {
        fail("\(error)")
    }
    exit(0)
}

guard arguments.count == 6, let count = Int(arguments[2]) else { fail("usage: return|exit|task N MODULE RECORDING OUTBOX") }
let outbox: Outbox
do {
    outbox = try Outbox(path: arguments[5]) { error in FileHandle.standardError.write(Data("\(error)\n".utf8)) }
} catch {
    fail("\(error)")
}
var dependency = Manager.Dependency(recordingURL: URL(fileURLWithPath: arguments[4]))
dependency.outbox = outbox.sink(session: "exit")
let manager = Manager(moduleURL: URL(fileURLWithPath: arguments[3]), dependency: dependency)
let application = Application(manager: manager)
let screenObject = Screen(application: application)  // an analyzer holds its owner weakly
let screen = Analyzer(owner: screenObject)
screen.enable(naming: "screen")

func record(from first: Int, count: Int) {
    for n in first..<(first + count) { screen.record("tap", with: ["n": .number(Double(n))]) }
}

/// Loads the engine and waits: the drain at exit (at most 2 s) is there for the events recorded
/// last, and on a loaded machine starting JavaScriptCore alone could take most of it.
func loadEngine() {
    let loaded = DispatchSemaphore(value: 0)
    manager.snapshot(format: .markup, onScriptQueue: { _ in loaded.signal() })
    loaded.wait()
}

switch arguments[1] {
case "return":
    loadEngine()
    record(from: 0, count: count)
case "exit":
    loadEngine()
    record(from: 0, count: count)
    exit(0)
case "task":
    // Paused while recording, so everything is sent before the completion can run: exactly
    // `count` operations are left behind it, whatever the threads' timing.
    manager.pause()
    record(from: 0, count: count)
    manager.snapshot(format: .markup, onScriptQueue: { _ in exit(0) })
    record(from: count, count: count)
    manager.resume()
    DispatchSemaphore(value: 0).wait()  // the snapshot's completion ends the process
default:
    fail("unknown mode \(arguments[1])")
}
