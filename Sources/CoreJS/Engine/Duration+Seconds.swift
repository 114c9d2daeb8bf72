extension Duration {
    /// This duration in seconds, for the APIs that take a `Double` (dispatch deadlines, the
    /// watchdog's CPU clock, messages).
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
