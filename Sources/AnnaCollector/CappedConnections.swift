import HummingbirdCore

/// (The inspector's server has the same.) Serves at most `maximum` connections at once (Hummingbird stops accepting beyond it; new
/// connections wait in the listen queue) and says so through `onCapReached` the first time the
/// cap is reached.
struct CappedConnections: AvailableConnectionsDelegate {
    let maximum: Int
    let onCapReached: @Sendable (Int) -> Void
    private var open = 0
    private var said = false

    init(maximum: Int, onCapReached: @escaping @Sendable (Int) -> Void) {
        self.maximum = maximum
        self.onCapReached = onCapReached
    }

    mutating func connectionOpened() {
        open += 1
        if open >= maximum, !said {
            said = true
            onCapReached(maximum)
        }
    }

    mutating func connectionClosed() { open -= 1 }

    func isAcceptingNewConnections() -> Bool { open < maximum }
}
