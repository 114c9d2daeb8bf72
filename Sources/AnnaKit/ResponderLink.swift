import CoreJS

/// The two links of a kit object that Anna reads while it builds focus paths: the next
/// responder and the parent constitutor.
///
/// Kit objects live on the main actor, but Anna asks for these links from whichever thread
/// records an event (under its own lock). So each object keeps a copy of its two links here,
/// behind a mutex, and refreshes it on the main actor whenever the hierarchy changes
/// (``ResponderObject/refreshResponderLink()``). The references are weak, like `superview`.
final class ResponderLink: Sendable {
    private struct Targets {
        weak var next: ResponderObject?
        weak var constitutor: ResponderObject?
    }

    private let targets = Locked(Targets())

    /// The next responder, as last refreshed.
    var next: ResponderObject? {
        targets.withLock { $0.next }
    }

    /// The parent constitutor, as last refreshed.
    var constitutor: ResponderObject? {
        targets.withLock { $0.constitutor }
    }

    /// Replaces both links.
    func update(next: ResponderObject?, constitutor: ResponderObject?) {
        targets.withLock { targets in
            targets.next = next
            targets.constitutor = constitutor
        }
    }
}
