// A child process for the kill tests (AnnaOutboxTests.OutboxKillTests):
//   anna-outbox-crash-helper append FILE   appends {"i": n} results under session "crash",
//                                          n counting on from the rows already in FILE, until killed
//   anna-outbox-crash-helper upload FILE URL BATCH
//                                          uploads FILE to URL in batches of BATCH, exits 0 when empty
import Anna
import AnnaOutbox
import CoreJS
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("anna-outbox-crash-helper: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: append FILE | upload FILE URL BATCH") }
let outbox: Outbox
do {
    outbox = try Outbox(path: arguments[2]) { error in FileHandle.standardError.write(Data("\(error)\n".utf8)) }
} catch {
    fail("\(error)")
}
/// Tells the test the outbox is open, so its kill lands in the work, not in the start-up.
func ready() {
    FileHandle.standardOutput.write(Data("ready\n".utf8))
}

switch arguments[1] {
case "append":
    var next: Int
    do { next = try outbox.stats().pending } catch { fail("\(error)") }
    let meta = ResultMeta(task: "crash/task", path: "/crash", event: "tick")
    ready()
    while true {
        do {
            try outbox.append(
                AnalyticsResult(value: ["i": .number(Double(next)), "pad": "0123456789abcdef"], meta: meta), session: "crash",
                time: Double(next))
            next += 1
            if next % 64 == 0 { usleep(200) }  // let the writer commit small groups, so kills land between them
        } catch {
            fail("\(error)")
        }
    }
case "upload":
    guard arguments.count == 5, let batch = Int(arguments[4]) else { fail("usage: upload FILE URL BATCH") }
    var configuration = UploadConfiguration(url: arguments[3])
    configuration.maximumBatchCount = batch
    configuration.initialBackoffSeconds = 0.01
    configuration.maximumBackoffSeconds = 0.05
    let uploader: OutboxUploader
    do { uploader = try OutboxUploader(outbox: outbox, configuration: configuration) } catch { fail("\(error)") }
    ready()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        _ = await uploader.flush()
        done.signal()
    }
    done.wait()
    outbox.close()
    exit(0)
default:
    fail("unknown mode \(arguments[1])")
}
