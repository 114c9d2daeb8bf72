/// Said once per analyzer in debug mode (to the manager's delegate, as a caught error; not a
/// failure): the analyzer's node moved to a new parent.
///
/// It happens when an ancestor's node was deregistered while the analyzer stayed (a screen that
/// hung under a button of a screen that went away): the node registers again where its
/// responder chain now leads, and takes its values, visibility and recent events along.
public struct NodeMove: Error, Sendable, Equatable, CustomStringConvertible {
    /// The node's ID (the same before and after the move).
    public let id: NodeID
    /// The path the node had (`/notes/new/notes`).
    public let from: String
    /// The path it has now (`/notes`).
    public let to: String

    /// One line naming both paths.
    public var description: String {
        "node \(from) moved to \(to): a node above it was deregistered while its analyzer stayed; "
            + "its values, visibility and recent events moved with it"
    }
}
