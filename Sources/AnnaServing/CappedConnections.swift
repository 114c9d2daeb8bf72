import HummingbirdCore

/// Serves at most `maximum` connections at once (Hummingbird stops accepting beyond it; new
/// connections wait in the listen queue) and says so through `onCapReached` the first time the
/// cap is reached. The inspector's server and the collector both use it.
public struct CappedConnections: AvailableConnectionsDelegate {
    /// The most connections served at once.
    public let maximum: Int
    /// Called with `maximum` the first time that many connections are open.
    public let onCapReached: @Sendable (Int) -> Void
    private var open = 0
    private var said = false

    /// A cap of `maximum` connections that calls `onCapReached` the first time it is reached.
    public init(maximum: Int, onCapReached: @escaping @Sendable (Int) -> Void) {
        self.maximum = maximum
        self.onCapReached = onCapReached
    }

    /// Counts a new connection; says so the first time the cap is reached.
    public mutating func connectionOpened() {
        open += 1
        if open >= maximum, !said {
            said = true
            onCapReached(maximum)
        }
    }

    /// Counts a closed connection.
    public mutating func connectionClosed() { open -= 1 }

    /// Whether fewer than `maximum` connections are open.
    public func isAcceptingNewConnections() -> Bool { open < maximum }
}
