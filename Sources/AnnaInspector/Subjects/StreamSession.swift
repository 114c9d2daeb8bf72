import Anna
import CoreJS
import Dispatch
import Foundation

/// An event stream replayed (or followed) through an engine, line by line, under an
/// inspector: play, pause, step one line, jump to line N (the engine starts over and the
/// tree and results are as of that line). The engine of `anna inspect` and `anna report`.
///
/// The engine lives on one serial queue; the lines read so far are kept (for jumps back).
public final class StreamSession: InspectedSubject, StreamPlayback, @unchecked Sendable {
    /// Makes an engine (called again on a jump back).
    public typealias EngineMaker = @Sendable () throws -> AnalyticsEngine

    private struct Lines: Sendable {
        var texts: [Data] = []
        /// When each line arrived, for lines appended to a followed file after its end was
        /// reached while the session was caught up (else `nil`: lines read in bulk wait for
        /// each other, which says nothing of the engine).
        var arrivals: [UInt64?] = []
        /// Whether a followed file's end was reached.
        var live = false
        var ended = false
        var endError: String?
    }

    /// The inspector showing this session.
    public let inspector: Inspector
    /// Where the lines come from.
    public let source: StreamSource

    private let makeEngine: EngineMaker
    private let onResult: @Sendable (AnalyticsResult) -> Void
    private let notice: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "anna.inspector.session")
    private let lines = Locked(Lines())
    private let status = Locked(Status())
    private var reader: StreamLineReader?
    private let caughtUp = DispatchGroup()

    // Only touched on `queue`.
    private var engine: AnalyticsEngine?
    private var position = 0
    private var pumpScheduled = false
    private var endReported = false

    private struct Status: Sendable {
        var playing = true
        var debug = false
        var line = 0
        var lineCount = 0
    }

    /// A session (nothing read yet: ``start()``).
    /// - Parameters:
    ///   - source: Where the event stream's lines come from.
    ///   - debug: Whether the module runs in debug mode (task files re-required on reload).
    ///   - playing: Whether lines are handled as they are read (else it waits for play or step).
    ///   - notice: Gets a line for a person when a followed file was truncated or replaced and
    ///     is read again from its start, or a line longer than 16 MiB was cut (`anna inspect`
    ///     and `anna report` print it on standard error).
    ///   - onResult: Gets each result after the inspector recorded it, on the session's queue
    ///     (`anna report` checks them against traces).
    ///   - configuration: The inspector's settings (its limits, token, tick).
    ///   - makeEngine: Makes the engine the stream runs in (again after a restart).
    public init(
        source: StreamSource, debug: Bool = false, playing: Bool = true, inspector configuration: InspectorConfiguration = InspectorConfiguration(),
        notice: @escaping @Sendable (String) -> Void = { _ in }, onResult: @escaping @Sendable (AnalyticsResult) -> Void = { _ in },
        makeEngine: @escaping EngineMaker
    ) {
        self.source = source
        self.notice = notice
        self.onResult = onResult
        self.makeEngine = makeEngine
        inspector = Inspector(configuration: configuration)
        status.withLock {
            $0.playing = playing
            $0.debug = debug
        }
        inspector.setSubject(self)
    }

    /// Loads the engine and starts reading.
    /// - Throws: what loading the module threw.
    public func start() throws {
        try queue.sync { try loadEngine() }
        let reader = StreamLineReader(
            source: source,
            onLines: { [weak self] texts in self?.append(texts) },
            onEnd: { [weak self] error in self?.end(error) },
            onReachedEnd: { [weak self] in self?.lines.withLock { $0.live = true } }, onNotice: notice)
        self.reader = reader
        caughtUp.enter()
        reader.start()
    }

    /// Waits until every line of a source that ends was read and handled (while playing).
    public func waitUntilHandled() async {
        await withCheckedContinuation { continuation in
            caughtUp.notify(queue: .global()) { continuation.resume() }
        }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    /// Stops reading (a followed file is no longer watched).
    public func stop() {
        reader?.stop()
    }

    // MARK: - Reading

    private func append(_ texts: [Data]) {
        lines.withLock { lines in
            let live = lines.live && status.withLock { $0.playing && $0.line == lines.texts.count }
            let now = DispatchTime.now().uptimeNanoseconds
            lines.texts.append(contentsOf: texts)
            lines.arrivals.append(contentsOf: texts.map { _ in live ? now : nil })
        }
        status.withLock { $0.lineCount = lines.withLock { $0.texts.count } }
        queue.async { self.pump() }
    }

    private func end(_ error: (any Error)?) {
        lines.withLock {
            $0.ended = true
            $0.endError = error.map { "\($0)" }
        }
        queue.async { self.pump() }
    }

    // MARK: - Playing (on `queue`)

    private func loadEngine() throws {
        engine = nil
        let made = try makeEngine()
        if status.withLock({ $0.debug }) { try made.setDebug(true) }
        engine = made
    }

    /// Handles lines while playing, a few hundred at a time (requests run in between).
    private func pump() {
        guard status.withLock({ $0.playing }) else { return }
        var handled = 0
        while handled < 256, handleNextLine() { handled += 1 }
        if handled == 256 {
            queue.async { self.pump() }
        } else {
            reportEndOnce()
        }
    }

    private func reportEndOnce() {
        let (ended, error, count) = lines.withLock { ($0.ended, $0.endError, $0.texts.count) }
        guard ended, position == count, !endReported else { return }
        endReported = true
        if let error { inspector.record(error: InspectorSessionError.readFailed(source.name, error), line: nil) }
        caughtUp.leave()
    }

    /// Handles the line after ``position``; `false` when none was read yet.
    @discardableResult
    private func handleNextLine() -> Bool {
        guard
            let (text, arrival) = lines.withLock({ lines in
                lines.texts.indices.contains(position) ? (lines.texts[position], lines.arrivals[position]) : nil
            })
        else { return false }
        position += 1
        status.withLock { $0.line = position }
        handle(text, line: position, arrival: arrival)
        return true
    }

    private func handle(_ text: Data, line: Int, arrival: UInt64?) {
        guard let engine else { return }
        guard let string = String(data: text, encoding: .utf8) else {
            inspector.record(error: InspectorSessionError.malformedLine(source.name, line, "the line is not UTF-8"), line: line)
            return
        }
        let record: EventStream.Record?
        do {
            record = try EventStream.parse(line: string)
        } catch {
            inspector.record(error: InspectorSessionError.malformedLine(source.name, line, "\(error)"), line: line)
            return
        }
        guard let record, case let .operation(operation) = record.command else { return }
        let time = record.time ?? InspectorClock.now()
        inspector.record(operation: operation, time: time, line: line)
        engine.apply([TimedOperation(operation, time: record.time)]).forEach { result in
            let latency = arrival.map { Double(DispatchTime.now().uptimeNanoseconds - $0) / 1e6 }
            inspector.record(result: result, line: line)
            if let latency { inspector.state.addLatency(milliseconds: latency) }
            onResult(result)
        } error: { _, error in
            inspector.record(error: error, line: line)
        }
    }

    /// Runs `body` with the engine on the queue.
    @discardableResult
    private func onQueue<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private func loadedEngine() throws -> AnalyticsEngine {
        guard let engine else { throw InspectorError.badRequest("the module did not load: see the errors") }
        return engine
    }

    // MARK: - InspectedSubject

    /// The tree as of the line handled last.
    public func snapshot(format: SnapshotFormat) async throws -> String {
        try await onQueue { try self.loadedEngine().snapshot(format: format) }
    }

    /// The tasks per file, with their counts so far.
    public func coverage() async throws -> Coverage {
        try await onQueue { try self.loadedEngine().coverage() }
    }

    /// The task files switched off.
    public func disabledTaskFiles() async throws -> [String] {
        try await onQueue { try self.loadedEngine().disabledTaskFiles() }
    }

    /// Switches a task file off or back on (until a jump, which starts a fresh engine).
    public func setTaskFile(_ file: String, enabled: Bool) async throws {
        try await onQueue { try self.loadedEngine().setTaskFile(file, enabled: enabled) }
    }

    /// Runs every task file again; a file that fails is among the errors.
    public func reloadTaskFiles() async throws {
        try await onQueue {
            try self.loadedEngine().reloadTaskFiles { self.inspector.record(error: $0, line: nil) }
        }
    }

    /// Turns the core's debug mode on or off.
    public func setDebug(_ debug: Bool) async throws {
        try await onQueue {
            try self.loadedEngine().setDebug(debug)
            self.status.withLock { $0.debug = debug }
        }
    }

    /// Whether debug mode is on.
    public var isDebug: Bool { status.withLock { $0.debug } }

    /// Pauses (no line is handled) or plays (lines are handled as they are read).
    public func setPaused(_ paused: Bool) async throws {
        status.withLock { $0.playing = !paused }
        if !paused { queue.async { self.pump() } }
    }

    /// Whether the session is paused.
    public var isPaused: Bool { !status.withLock { $0.playing } }

    /// Lines read and not handled yet.
    public var queueDepth: Int { status.withLock { $0.lineCount - $0.line } }

    /// The bytes the engine's JavaScript heap holds.
    public func heapBytes() async throws -> Int? {
        try await onQueue { try self.loadedEngine().heapBytes }
    }

    /// The session itself: it plays a stream.
    public var playback: (any StreamPlayback)? { self }

    // MARK: - StreamPlayback

    /// Lines handled so far.
    public var line: Int { status.withLock { $0.line } }
    /// Lines read so far.
    public var lineCount: Int { status.withLock { $0.lineCount } }

    /// Pauses, then handles the next line read (if any).
    public func step() async throws {
        try await onQueue {
            self.status.withLock { $0.playing = false }
            self.handleNextLine()
            self.reportEndOnce()
        }
    }

    /// Pauses, starts over with a fresh engine (the results and errors shown are cleared) and
    /// handles the lines up to `target` (fewer when fewer were read).
    public func jump(toLine target: Int) async throws {
        try await onQueue {
            self.status.withLock { $0.playing = false }
            self.inspector.state.reset()
            self.position = 0
            self.status.withLock { $0.line = 0 }
            do {
                try self.loadEngine()
            } catch {
                self.inspector.record(error: error, line: nil)
                throw error
            }
            while self.position < target, self.handleNextLine() {}
            self.reportEndOnce()
        }
    }
}

/// What went wrong reading a session's stream.
enum InspectorSessionError: Error, CustomStringConvertible {
    case malformedLine(String, Int, String)
    case readFailed(String, String)

    var description: String {
        switch self {
        case let .malformedLine(name, line, reason): return "\(name):\(line): \(reason) (the line was skipped)"
        case let .readFailed(name, reason): return "\(name): reading stopped: \(reason)"
        }
    }
}
