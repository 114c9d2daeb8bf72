import Anna
import CoreJS

/// The analyzer of one kit object: made on first use, and detached with its owner.
///
/// The kit records its own events (visibility, taps, selections) only on analyzers that are
/// enabled, so an object nobody analyzes costs nothing and queues nothing.
final class AnalyzerSlot: Sendable {
    private let storage: Locked<Analyzer?>

    /// An empty slot, or one holding `preset` (the application's root analyzer).
    init(_ preset: Analyzer? = nil) {
        storage = Locked(preset)
    }

    /// The analyzer, made for `owner` on first use.
    func analyzer(for owner: any FocusPathConstituting) -> Analyzer {
        storage.withLock { slot in
            if let analyzer = slot { return analyzer }
            let analyzer = Analyzer.analyzer(with: owner)
            slot = analyzer
            return analyzer
        }
    }

    /// The analyzer when it exists and is enabled; `nil` otherwise.
    var enabledAnalyzer: Analyzer? {
        guard let analyzer = storage.withLock({ $0 }), analyzer.isEnabled else { return nil }
        return analyzer
    }

    /// Records `event` when the analyzer is enabled.
    func record(_ event: String) {
        enabledAnalyzer?.record(event)
    }

    /// Marks the analyzer focused when it is enabled.
    func markFocused() {
        enabledAnalyzer?.markFocused()
    }

    /// Detaches the analyzer, if one was made (its node and descendants are deregistered).
    func detach() {
        storage.withLock { $0 }?.detach()
    }
}
