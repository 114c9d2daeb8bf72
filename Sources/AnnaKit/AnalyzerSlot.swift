import Anna
import Synchronization

/// The analyzer of one kit object: made on first use, and detached with its owner.
///
/// The kit records its own events (visibility, taps, selections) only on analyzers that are
/// enabled, so an object nobody analyzes costs nothing and queues nothing.
final class AnalyzerSlot: Sendable {
    private let storage: Mutex<Analyzer?>

    /// An empty slot, or one holding `preset` (the application's root analyzer).
    init(_ preset: Analyzer? = nil) {
        storage = Mutex(preset)
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
        guard let analyzer = storage.withLock({ $0 }), analyzer.kitIsEnabled else { return nil }
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

extension Analyzer {
    /// Whether the analyzer is enabled: named with `enable(naming:)` or added as a
    /// sub-analyzer, and not detached since.
    ///
    /// Anna keeps this flag internal. A registered node is always enabled, which answers most
    /// calls; otherwise the stored flag is read by reflection, until Anna makes it public
    /// (see the kit's report: `Analyzer.isEnabled`). Kit analyzers are enabled and detached on
    /// the main actor, where this is read.
    var kitIsEnabled: Bool {
        if registeredNodeID != nil { return true }
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            if let flag = current.children.first(where: { $0.label == "isEnabled" })?.value as? Bool {
                return flag
            }
            mirror = current.superclassMirror
        }
        return false
    }
}
