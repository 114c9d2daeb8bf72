import CoreJS

/// Where a task comes from: the file and position of the `match(…)` call that made it.
public struct TaskLocation: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The task file's path.
    public var file: String
    /// The 1-based line.
    public var line: Int?
    /// The 1-based column.
    public var column: Int?

    /// Creates a location.
    public init(file: String, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, or as much of it as is known.
    public var description: String {
        [file, line.map(String.init), line == nil ? nil : column.map(String.init)].compactMap { $0 }.joined(separator: ":")
    }

    /// `'/path'`, or `the root` for the root node (whose path is empty).
    static func describeNode(_ path: String) -> String {
        path.isEmpty ? "the root" : "'\(path)'"
    }

    /// The location of a core's report entry (`file`, `line`, `column` fields), when it has a file.
    init?(fields entry: JSONValue, prefix: String = "") {
        guard let file = entry[prefix.isEmpty ? "file" : prefix + "File"]?.stringValue else { return nil }
        self.init(
            file: file, line: entry[prefix.isEmpty ? "line" : prefix + "Line"]?.numberValue.map { Int($0) },
            column: entry[prefix.isEmpty ? "column" : prefix + "Column"]?.numberValue.map { Int($0) })
    }
}

/// A task that threw while handling an event.
public struct TaskFailure: Sendable, Equatable, CustomStringConvertible {
    /// The task's pattern.
    public var task: String
    /// The path of the node the event happened on.
    public var path: String
    /// The event's name.
    public var event: String
    /// The message of what the task threw.
    public var message: String
    /// The JavaScript stack of what the task threw, when known.
    public var stack: String?
    /// Where the task was made (its `match` call), when the core says.
    public var location: TaskLocation?
    /// Where the error was thrown (`file:line:column`), when known.
    public var errorLocation: String?

    /// Creates a failure record.
    public init(
        task: String, path: String, event: String, message: String, stack: String? = nil, location: TaskLocation? = nil,
        errorLocation: String? = nil
    ) {
        self.task = task
        self.path = path
        self.event = event
        self.message = message
        self.stack = stack
        self.location = location
        self.errorLocation = errorLocation
    }

    /// The task's file, when known.
    public var file: String? { location?.file }
    /// The task's line, when known.
    public var line: Int? { location?.line }
    /// The task's column, when known.
    public var column: Int? { location?.column }

    /// `task 'p' (file:line:column) on '/path' (event): message (thrown at file:line:column)`.
    public var description: String {
        var text = "task '\(task)'"
        if let location { text += " (\(location))" }
        text += " on \(TaskLocation.describeNode(path)) (\(event)): \(message)"
        if let errorLocation, errorLocation != location?.description { text += " (thrown at \(errorLocation))" }
        return text
    }
}

/// A task's result that lost part of its value on the way to the host.
public struct ResultWarning: Sendable, Equatable, CustomStringConvertible {
    /// The task's pattern.
    public var task: String
    /// The path of the node the event happened on.
    public var path: String
    /// The event's name.
    public var event: String
    /// Where the task was made, when the core says.
    public var location: TaskLocation?
    /// What was lost.
    public var message: String

    /// Creates a warning record.
    public init(task: String, path: String, event: String, location: TaskLocation? = nil, message: String) {
        self.task = task
        self.path = path
        self.event = event
        self.location = location
        self.message = message
    }

    /// The core's message, which names the task and where it is.
    public var description: String { message }
}
