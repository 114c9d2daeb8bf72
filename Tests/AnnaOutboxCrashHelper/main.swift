// A child process for the kill tests (AnnaOutboxTests.OutboxKillTests):
//   anna-outbox-crash-helper append FILE [--kill-after MS]
//                                          appends {"i": n} results under session "crash-<start>",
//                                          n counting on from start, the rows already in FILE, until killed
//   anna-outbox-crash-helper fill FILE BYTES COUNT
//                                          appends COUNT results under session "fill" with files limited
//                                          to BYTES (RLIMIT_FSIZE: writes fail as on a full disk), closes,
//                                          prints "accepted=A refused=R written=W lost=L"
//   anna-outbox-crash-helper upload FILE URL BATCH [--kill-after MS]
//                                          uploads FILE to URL in batches of BATCH, exits 0 when empty
//   anna-outbox-crash-helper both FILE GOOD_URL BAD_URL SESSION [--kill-after MS]
//                                          opens FILE with the destinations "good" and "bad", uploads
//                                          "good" to GOOD_URL in Segment's format and "bad" to BAD_URL in
//                                          Anna's (an uploader each, running at once), and appends
//                                          {"event": "tick", "i": n} results under SESSION, n from 0
//                                          (its seq), one about every half millisecond, until killed
// With --kill-after, the helper SIGKILLs itself MS milliseconds after the outbox is open (and
// prints "ready" then), wherever its threads are: the kill lands in the work, not the start-up.
import Anna
import AnnaOutbox
import CoreJS
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("anna-outbox-crash-helper: \(message)\n".utf8))
    exit(2)
}

var arguments = CommandLine.arguments
var killAfter: Int?
if arguments.count >= 2, arguments[arguments.count - 2] == "--kill-after" {
    guard let milliseconds = Int(arguments[arguments.count - 1]), milliseconds >= 0 else { fail("--kill-after takes milliseconds") }
    killAfter = milliseconds
    arguments.removeLast(2)
}
let killAfterMilliseconds = killAfter
guard arguments.count >= 3 else {
    fail(
        "usage: append FILE | upload FILE URL BATCH | fill FILE BYTES COUNT | both FILE GOOD_URL BAD_URL SESSION, then --kill-after MS optionally"
    )
}
if arguments[1] == "fill" {
    guard arguments.count == 5, let bytes = UInt64(arguments[3]), Int(arguments[4]) != nil else {
        fail("usage: fill FILE BYTES COUNT")
    }
    signal(SIGXFSZ, SIG_IGN)  // a write past the limit fails with EFBIG instead of ending the process
    var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { fail("setrlimit: \(errno)") }
}
let outbox: Outbox
do {
    var configuration = OutboxConfiguration()
    configuration.waitsWhenBehind = arguments[1] == "fill"
    if arguments[1] == "both" { configuration.destinations = ["good", "bad"] }
    outbox = try Outbox(path: arguments[2], configuration: configuration) { error in
        FileHandle.standardError.write(Data("\(error)\n".utf8))
    }
} catch {
    fail("\(error)")
}
/// Says the outbox is open, and arms the kill of --kill-after from now.
func ready() {
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    guard let milliseconds = killAfterMilliseconds else { return }
    Thread.detachNewThread {
        usleep(useconds_t(milliseconds * 1000))
        kill(getpid(), SIGKILL)
    }
}

switch arguments[1] {
case "append":
    var next: Int
    do { next = try outbox.stats().pending } catch { fail("\(error)") }
    let meta = ResultMeta(task: "crash/task", path: "/crash", event: "tick")
    // A session of its own each round: message IDs are a function of session and position.
    let session = "crash-\(next)"
    ready()
    while true {
        do {
            try outbox.append(
                AnalyticsResult(value: ["i": .number(Double(next)), "pad": "0123456789abcdef"], meta: meta), session: session,
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
    configuration.initialBackoff = .milliseconds(10)
    configuration.maximumBackoff = .milliseconds(50)
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
case "both":
    guard arguments.count == 6 else { fail("usage: both FILE GOOD_URL BAD_URL SESSION") }
    // "good": Segment's body, small batches sent soon, so kills land between a 2xx and the delete.
    var good = UploadConfiguration(url: arguments[3], format: .segment)
    good.destination = "good"
    good.apiKey = "kill-test"
    good.flushAt = 4
    good.flushInterval = .milliseconds(5)
    good.maximumBatchCount = 8
    good.pollInterval = .milliseconds(2)
    // "bad": Anna's body to an endpoint that fails throughout; retried at the back-off's pace.
    var bad = UploadConfiguration(url: arguments[4])
    bad.destination = "bad"
    bad.maximumBatchCount = 8
    bad.pollInterval = .milliseconds(2)
    (good.initialBackoff, good.maximumBackoff) = (.milliseconds(10), .milliseconds(50))
    (bad.initialBackoff, bad.maximumBackoff) = (.milliseconds(10), .milliseconds(50))
    let uploaders: [OutboxUploader]
    do {
        uploaders = [
            try OutboxUploader(outbox: outbox, configuration: good), try OutboxUploader(outbox: outbox, configuration: bad),
        ]
    } catch {
        fail("\(error)")
    }
    let session = arguments[5]
    let meta = ResultMeta(task: "crash/both", path: "/crash", event: "tick")
    ready()
    for uploader in uploaders {
        Task.detached { await uploader.run() }
    }
    var next = 0
    while true {
        do {
            try outbox.append(
                AnalyticsResult(value: ["event": "tick", "i": .number(Double(next)), "pad": "0123456789abcdef"], meta: meta),
                session: session, time: 1_700_000_000_000 + Double(next))
            next += 1
            usleep(500)
        } catch {
            fail("\(error)")
        }
    }
case "fill":
    let count = Int(arguments[4]) ?? 0
    var accepted = 0
    var refused = 0
    for index in 0..<count {
        do {
            try outbox.append(
                AnalyticsResult(value: ["i": .number(Double(index)), "pad": .string(String(repeating: "p", count: 100))]),
                session: "fill", time: Double(index))
            accepted += 1
        } catch {
            refused += 1
        }
    }
    _ = outbox.drain(before: .now + .seconds(2))
    outbox.close()
    var written = 0
    do {
        var readOnly = OutboxConfiguration()
        readOnly.readOnly = true
        let file = try Outbox(path: arguments[2], configuration: readOnly)
        written = try file.stats().pending
        file.close()
    } catch {
        fail("\(error)")
    }
    print("accepted=\(accepted) refused=\(refused) written=\(written) lost=\(outbox.lostCount)")
    exit(0)
default:
    fail("unknown mode \(arguments[1])")
}
