import UnixSignals

extension InspectorServer {
    /// Waits for SIGINT or SIGTERM (the command-line tools serve until one arrives).
    public static func waitForTerminationSignal() async {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        for await _ in signals { return }
    }
}
