import Anna

/// What an inspector looks at and switches: a running ``/Anna/Manager`` (`ManagerSubject`) or a
/// stream being replayed (``StreamSession``). Every method may be called from any thread.
public protocol InspectedSubject: Sendable {
    /// The focus-path tree as of now.
    func snapshot(format: SnapshotFormat) async throws -> String
    /// The tasks per file with their match and failure counts.
    func coverage() async throws -> Coverage
    /// The task files switched off.
    func disabledTaskFiles() async throws -> [String]
    /// Switches a task file's tasks off or back on.
    func setTaskFile(_ file: String, enabled: Bool) async throws
    /// Runs every task file again.
    func reloadTaskFiles() async throws
    /// Turns debug mode on or off.
    func setDebug(_ debug: Bool) async throws
    /// Whether debug mode is on.
    var isDebug: Bool { get }
    /// Pauses or resumes the handling of operations.
    func setPaused(_ paused: Bool) async throws
    /// Whether handling is paused.
    var isPaused: Bool { get }
    /// Operations waiting to be handled.
    var queueDepth: Int { get }
    /// Events the subject counted itself (a manager), or `nil`: the inspector counts those it
    /// is handed.
    var eventCount: Int? { get }
    /// The bytes the JavaScript heap holds, when known.
    func heapBytes() async throws -> Int?
    /// The recorded stream's controls, when the subject replays one.
    var playback: (any StreamPlayback)? { get }
}

extension InspectedSubject {
    /// `nil`: the inspector counts the events it is handed.
    public var eventCount: Int? { nil }
}

/// The controls of a recorded stream: step one line, jump to a line.
public protocol StreamPlayback: Sendable {
    /// Lines handled so far (the tree and results are as of this line).
    var line: Int { get }
    /// Lines read so far.
    var lineCount: Int { get }
    /// Handles the next line (while paused).
    func step() async throws
    /// Starts over and handles lines up to `line` (then pauses).
    func jump(toLine line: Int) async throws
}
