import CoreJS
import Foundation

/// The Swift half of the bridge to a module's manager: it installs `Scripts/module-bridge.js`
/// (the JavaScript half, built from the pieces beside it) in a runtime, sends it batches of encoded operations and takes back, in
/// one call, what each batch produced: results (as JSON text), metas and errors.
///
/// Not thread-safe: used by one ``AnalyticsEngine``.
final class ModuleBridge {
    /// When this many metas are numbered, both sides start over.
    static let metaLimit = 65_536

    /// What one batch brought back.
    struct Outcome {
        /// How many operations of the batch finished: all of them unless ``stop`` is set.
        var finished: Int
        /// Why the batch stopped early (the time limit): operation ``finished`` was running,
        /// unless ``stoppedAfterOperations``.
        var stop: JavaScriptError?
        /// Whether the stop came after the operations, in promise jobs they queued.
        var stoppedAfterOperations = false
        /// When an operation was stopped: the stop of a promise job queued before it (by an
        /// earlier operation), which ran as the stopped call ended.
        var stoppedJobBefore: JavaScriptError?
        /// Whether nodes removed since the last collection make a full one worth its cost.
        var collectionDue = false
        /// The results of the finished operations, in order.
        var results: PendingResults
        /// The operations that threw, by offset in the batch, in order.
        var errors: [(offset: Int, error: JavaScriptError)] = []
        /// Set when the results could not be read back at all (they are lost with it).
        var readFailure: JavaScriptError?
    }

    /// Arguments for the module's constructor: `(receive, config)`.
    let managerArguments: [JavaScriptValue]
    /// The names of ``BridgeWire/table`` the JavaScript half read.
    let wireNames: [String]

    private let context: JavaScriptContext
    private let functions: Functions
    /// Slots of the bridge's interned tables, by ``StringTableMirror/identity``.
    private var tableSlots: [Int: Int] = [:]
    /// Per table slot, the mirror's generation and string count JavaScript holds (missing:
    /// unknown, so the next batch sends the whole table).
    private var tablesSent: [Int: (generation: Int, count: Int)] = [:]
    /// The metas numbered so far; result meta IDs index it.
    private var metas: [ResultMeta] = []
    /// The `Float64Array` batches are copied into, reused while large enough.
    private var batchArray: JavaScriptValue?
    private var batchArrayLength = 0

    /// The host's scripts of the bridge, evaluated: each install makes a new JavaScript half
    /// (its own state) on the same compiled code, so a bridge made with an earlier one's
    /// ``scripts`` (an engine's reset) runs on what the JIT compiled for it.
    struct Scripts {
        /// `install(wire, marker, parts)`.
        let install: JavaScriptValue
        /// The pieces `install` builds the JavaScript half from, by name.
        let parts: JavaScriptValue

        /// Evaluates the bridge's scripts in `context`.
        /// - Throws: ``JavaScriptError`` when one is missing or fails.
        init(context: JavaScriptContext) throws {
            install = try HostScript.moduleBridge.evaluate(in: context)
            let (builtIns, walk) = try HostScript.walk(in: context)
            parts = context.makeValue(.object([:]))
            try parts.setProperty("builtIns", builtIns)
            for part in HostScript.bridgeParts {
                try parts.setProperty(part.name, try part.script.evaluate(in: context).call([builtIns], operation: "making the module bridge"))
            }
            let guardBuiltIns = try HostScript.builtInsGuard.evaluate(in: context).call([walk, builtIns], operation: "making the built-ins guard")
            try parts.setProperty("guardBuiltIns", guardBuiltIns)
        }
    }

    /// The scripts this bridge was made with.
    let scripts: Scripts

    /// Installs the JavaScript half in `context`, with `config.debug` set to `debug`, from
    /// `reused` scripts of an earlier bridge in the same context or from the resources.
    /// - Throws: ``JavaScriptError`` when a script is missing or does not install.
    init(context: JavaScriptContext, debug: Bool, reusing reused: Scripts? = nil) throws {
        self.context = context
        scripts = try reused ?? Scripts(context: context)
        let script = try scripts.install.call(
            [context.makeValue(BridgeWire.table), context.operationMarker ?? context.makeValue(.null), scripts.parts],
            operation: "installing the module bridge")
        functions = try Functions(script)
        let config = try script.property("config")
        try config.setProperty("debug", .bool(debug))
        managerArguments = [try script.property("receive"), config]
        wireNames = (try script.property("wireNames").toJSON().arrayValue ?? []).compactMap(\.stringValue)
    }

    /// Hands the constructed manager to the JavaScript half.
    func attach(_ manager: JavaScriptValue) throws {
        try functions.attach.call([manager])
    }

    /// Runs operations `range` of `batch` and takes back what they produced, unless the time
    /// limit stopped one (then ``resume()`` may run the rest of its event first, and
    /// ``takeProduced(into:)`` takes it all). `strings` is the table of the encoder that made
    /// `batch`, after it; the strings JavaScript lacks are sent first.
    /// - Throws: when the batch could not be sent (nothing ran).
    func send(_ batch: EncodedOperations, _ range: Range<Int>, strings: StringTableMirror) throws -> Outcome {
        if metas.count >= Self.metaLimit {
            try functions.forgetMetas.call([JavaScriptValue]())
            metas.removeAll(keepingCapacity: true)
        }
        let slot = tableSlot(for: strings)
        let sent = tablesSent[slot].flatMap {
            $0.generation == strings.generation && $0.count <= strings.strings.count ? $0.count : nil
        }
        let slice = batch.numbers(of: range)
        let missing = strings.strings[(sent ?? 0)...]
        let rangeLiterals = batch.literals(of: range)
        let arguments = [
            try slice.withUnsafeBufferPointer { try batchArray(holding: $0) },
            context.makeValue(.number(Double(slice.count))),
            context.makeValue(.number(Double(range.count))),
            context.makeValue(.number(Double(slot))),
            missing.isEmpty ? context.makeValue(.null) : context.makeValue(.array(missing.map(JSONValue.string))),
            rangeLiterals.isEmpty ? context.makeValue(.null) : context.makeValue(.array(rangeLiterals.map(JSONValue.string))),
            context.makeValue(.number(Double(rangeLiterals.startIndex))),
            context.makeValue(.bool(sent == nil)),
        ]
        tablesSent[slot] = (strings.generation, strings.strings.count)  // taken in before the operations
        var outcome = Outcome(
            finished: range.count, results: PendingResults(text: [], index: [], metas: [], times: batch.times(of: range)))
        do {
            outcome.collectionDue = try functions.apply.call(arguments).toJSON() == .bool(true)
            if let stop = context.takeStoppedPromiseJob() {
                outcome.stop = stop
                outcome.stoppedAfterOperations = true
            }
        } catch {
            tablesSent[slot] = nil  // a call stopped by the time limit may not have taken them all in
            outcome.stop = Self.javaScriptError(error)
            outcome.stoppedJobBefore = context.takeStoppedPromiseJob()
            do {
                let progress = Int(try functions.progress.call([JavaScriptValue]()).toJSON().numberValue ?? 0)
                outcome.stoppedAfterOperations = progress < 0
                outcome.finished = min(progress < 0 ? -1 - progress : progress, range.count)
            } catch {
                outcome.finished = 0
            }
        }
        if outcome.stop == nil { takeProduced(into: &outcome) }
        return outcome
    }

    /// After a stop: runs the tasks of the stopped operation's event after the stopped one,
    /// where the core can. Returns whether the core found the stopped task.
    /// - Throws: ``JavaScriptError`` when the time limit stopped one of them too.
    func resume() throws -> Bool {
        try functions.resume.call([JavaScriptValue]()).toJSON() == .bool(true)
    }

    /// After a stop in a promise job: has the core report the async tasks whose jobs were
    /// dropped with it (among the batch's errors).
    /// - Throws: ``JavaScriptError`` when that fails.
    func abandonPending() throws {
        try functions.abandonPending.call([JavaScriptValue]())
    }

    /// After a stop in a promise job: the batch offset of the operation that queued the job
    /// (`nil` when unknown, e.g. queued in an earlier batch) and the core's description of
    /// its task (`runningTask()` fields), as far as the JavaScript half knows them.
    /// `afterStoppedOperation`: the job ran as a stopped operation's call ended
    /// (``Outcome/stoppedJobBefore``). Called before ``abandonPending()``, which forgets it.
    func stoppedJob(afterStoppedOperation: Bool = false) -> (operation: Int?, task: JSONValue?) {
        let job: JSONValue
        do {
            let value = try functions.stoppedJob.call([context.makeValue(.bool(afterStoppedOperation))])
            guard value.isString else { return (nil, nil) }
            job = try JSONValue(parsing: value.toString())
        } catch {
            return (nil, nil)  // only a better name for an error already being reported
        }
        let operation = job["operation"]?.numberValue.flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
        return (operation, job["task"])
    }

    /// Calls into JavaScript throw ``JavaScriptError``; anything else is wrapped as one.
    static func javaScriptError(_ error: any Error) -> JavaScriptError {
        error as? JavaScriptError ?? .typeMismatch("\(error)")
    }

    private func tableSlot(for strings: StringTableMirror) -> Int {
        if let slot = tableSlots[strings.identity] { return slot }
        let slot = tableSlots.count
        tableSlots[strings.identity] = slot
        return slot
    }

    /// The reused batch array with `numbers` at its start (a larger one when they do not fit).
    private func batchArray(holding numbers: UnsafeBufferPointer<Double>) throws -> JavaScriptValue {
        let array: JavaScriptValue
        if let batchArray, batchArrayLength >= numbers.count {
            array = batchArray
        } else {
            batchArrayLength = max(2 * numbers.count, 32_768)
            array = try context.makeFloat64Array(length: batchArrayLength)
            batchArray = array
        }
        try array.overwriteFloat64Array(from: numbers)
        return array
    }

    /// Fills in the results, metas and errors of the batch. JavaScript writes the results
    /// as JSON text; when the time limit stops it there (a getter that loops), it is asked
    /// again, and goes on one result at a time past the one it was writing (reported among
    /// the errors): each try gets further, so this ends.
    func takeProduced(into outcome: inout Outcome) {
        var taken: JavaScriptValue?
        var attempts = 0
        while taken == nil {
            do {
                taken = try functions.finish.call([JavaScriptValue](), operation: "writing the results of a batch")
            } catch JavaScriptError.executionTimeLimitExceeded where attempts <= Self.maximumFinishAttempts {
                attempts += 1  // stopped writing a result: the next try reports it and goes on
            } catch {
                outcome.readFailure = Self.javaScriptError(error)
                return
            }
        }
        guard let taken else { return }
        // A promise job a result's reading queued, stopped when the call ended.
        defer {
            if let stop = context.takeStoppedPromiseJob() { outcome.errors.append((max(0, outcome.finished - 1), stop)) }
        }
        do {
            let text: [UInt8]
            if taken.isString {  // only results: no metas or errors
                text = taken.utf8Bytes()
            } else {
                try addMetas(try taken.property("1").toString())
                outcome.errors = try errors(in: taken.property("2"))
                text = try taken.property("0").utf8Bytes()
            }
            outcome.results = PendingResults(text: text, index: try resultIndex(), metas: metas, times: outcome.results.times)
        } catch {
            outcome.readFailure = Self.javaScriptError(error)
        }
    }

    /// The operation offsets and meta IDs of the values ``Functions/finish`` wrote, copied out
    /// of JavaScript's `Float64Array` (`[count, operation, metaID, …]`).
    private func resultIndex() throws -> [Double] {
        try functions.resultIndex.call([JavaScriptValue]()).withFloat64Array { numbers in
            let count = numbers.first.map(Int.init(exactly:)) ?? nil
            guard let count, count >= 0, 1 + 2 * count <= numbers.count else {
                throw JavaScriptError.typeMismatch("the results' index does not hold the count it starts with")
            }
            return Array(numbers[1..<(1 + 2 * count)])
        }
    }

    /// The most times ``takeProduced(into:)`` asks again after a stop: one per result a batch
    /// can bring, and one for the try at all of them at once.
    private static let maximumFinishAttempts = 4 * AnalyticsEngine.maximumCallSize

    /// Adds the metas JavaScript numbered during the batch (`[task, path, event, …]` as JSON
    /// text, empty for none).
    private func addMetas(_ text: String) throws {
        guard !text.isEmpty, let fields = try JSONValue(parsing: text).arrayValue else { return }
        for start in stride(from: 0, to: fields.count - 2, by: 3) {
            metas.append(
                ResultMeta(
                    task: fields[start].stringValue ?? "", path: fields[start + 1].stringValue ?? "",
                    event: fields[start + 2].stringValue ?? ""))
        }
    }

    /// `[offset, error, …]` as offsets and errors.
    private func errors(in thrown: JavaScriptValue) throws -> [(offset: Int, error: JavaScriptError)] {
        let count = Int(try thrown.property("length").toJSON().numberValue ?? 0)
        return try stride(from: 0, to: count - 1, by: 2).map { pair in
            let offset = Int(try thrown.property(String(pair)).toJSON().numberValue ?? 0)
            return (offset, .exception(context.exception(from: try thrown.property(String(pair + 1)))))
        }
    }
}

extension ModuleBridge {
    /// The JavaScript half's functions, looked up once.
    private struct Functions {
        let attach: JavaScriptValue
        let apply: JavaScriptValue
        let progress: JavaScriptValue
        let finish: JavaScriptValue
        let resultIndex: JavaScriptValue
        let resume: JavaScriptValue
        let abandonPending: JavaScriptValue
        let stoppedJob: JavaScriptValue
        let forgetMetas: JavaScriptValue

        init(_ script: JavaScriptValue) throws {
            attach = try script.property("attach")
            apply = try script.property("apply")
            progress = try script.property("progress")
            finish = try script.property("finish")
            resultIndex = try script.property("resultIndex")
            resume = try script.property("resume")
            abandonPending = try script.property("abandonPending")
            stoppedJob = try script.property("stoppedJob")
            forgetMetas = try script.property("forgetMetas")
        }
    }
}
