/// What the inspector refuses or cannot do; the API answers with the message.
public enum InspectorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The manager inspected was released.
    case subjectGone
    /// The inspector has nothing to inspect yet (no manager was made with it).
    case noSubject
    /// A request lacked something or had a bad value.
    case badRequest(String)
    /// A recorded-stream control was used on a live manager.
    case notARecordedStream
    /// A token is required to listen beyond the loopback interface.
    case tokenRequired(host: String)
    /// A manager was not made with this library's ``Inspector`` as its inspector.
    case managerWithoutInspector
    /// The token given is empty (it would let every request through).
    case emptyToken

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .subjectGone: return "the inspected manager was released"
        case .noSubject: return "nothing to inspect yet: make a Manager with this inspector as Dependency.inspector"
        case let .badRequest(reason): return reason
        case .notARecordedStream: return "play, step and jump work on a recorded stream (anna inspect), not on a live manager"
        case let .tokenRequired(host):
            return "listening on \(host) (beyond the loopback interface) requires a token: give one (anna inspect --token T)"
        case .managerWithoutInspector:
            return "the manager has no Inspector: set Dependency.inspector = Inspector() when making it, then call startInspector"
        case .emptyToken:
            return "the inspector's token is empty: give a non-empty one (e.g. openssl rand -hex 16), or none on 127.0.0.1"
        }
    }
}
