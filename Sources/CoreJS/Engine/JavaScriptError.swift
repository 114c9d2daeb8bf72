/// A JavaScript exception seen from Swift: the thrown value and where it came from.
public struct JavaScriptException: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error's `name` (`TypeError`, `SyntaxError`, …), or `"Error"` for a thrown non-error.
    public var name: String
    /// The error's `message`, or the thrown value as text.
    public var message: String
    /// The file the error points at, when known.
    public var sourceURL: String?
    /// The 1-based line the error points at, when known.
    public var line: Int?
    /// The 1-based column the error points at, when known.
    public var column: Int?
    /// The JavaScript stack, one frame per line (`function@url:line:column`), when known.
    public var stack: String?
    /// The thrown value converted to JSON-like data (own enumerable properties such as `code`).
    public var thrownValue: JSONValue

    /// Creates an exception description; the engine fills these in from a thrown value.
    public init(
        name: String, message: String, sourceURL: String? = nil, line: Int? = nil,
        column: Int? = nil, stack: String? = nil, thrownValue: JSONValue = .undefined
    ) {
        self.name = name
        self.message = message
        self.sourceURL = sourceURL
        self.line = line
        self.column = column
        self.stack = stack
        self.thrownValue = thrownValue
    }

    /// `url:line:column`, or as much of it as is known.
    public var location: String? {
        guard let sourceURL else { return nil }
        var text = sourceURL
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        return text
    }

    /// `Name: message (at url:line:column)`; the place is not repeated when the message
    /// already ends with it (`ES modules are not supported; use require() (at FILE:LINE)`).
    public var description: String {
        var text = "\(name): \(message)"
        if let location, !message.hasSuffix("(at \(location))") { text += " (at \(location))" }
        return text
    }
}

/// Why a script or call into JavaScript failed.
public enum JavaScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The script threw.
    case exception(JavaScriptException)
    /// The script ran past the context's time limit and was stopped; `operation` names what ran.
    case executionTimeLimitExceeded(operation: String, limitSeconds: Double)
    /// The heap held more than the context's memory limit after `operation` (a call stopped
    /// at the time limit, or calls checked after they ended); `heapBytes` is what it held.
    case memoryLimitExceeded(operation: String, limitBytes: Int, heapBytes: Int)
    /// A value was not of the kind an operation needs (e.g. calling a non-function).
    case typeMismatch(String)

    /// A one-line human-readable account.
    public var description: String {
        switch self {
        case let .exception(exception):
            return exception.description
        case let .executionTimeLimitExceeded(operation, limit):
            return "execution time limit exceeded: \(operation) ran longer than \(limit.formatted) s and was stopped"
        case let .memoryLimitExceeded(operation, limit, heap):
            return "memory limit exceeded: the heap holds \(heap.megabytes) MB, past the limit of \(limit.megabytes) MB, after \(operation)"
        case let .typeMismatch(reason):
            return "type mismatch: \(reason)"
        }
    }

    /// The exception, when the script threw.
    public var exception: JavaScriptException? {
        if case let .exception(exception) = self { return exception }
        return nil
    }
}

extension Int {
    fileprivate var megabytes: Int { (self + (1 << 19)) >> 20 }
}

extension Double {
    fileprivate var formatted: String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
