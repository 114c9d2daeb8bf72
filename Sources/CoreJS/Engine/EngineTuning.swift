internal import CJavaScriptCore
import Foundation

/// JavaScriptCore's process-wide options that suit a workload. The engine reads its options
/// as it starts, so they are set only before the first context of the process; once a context
/// exists, a tuning changes nothing and says so. An option the environment already sets
/// (`JSC_useFTLJIT=true`, say) is left as it is.
public enum EngineTuning {
    /// For many short sessions replayed on every core at once (`anna replay`):
    /// - no FTL tier: a session of a few thousand events ends before FTL's compiles, repeated
    ///   in every engine and after every deoptimization, pay for themselves; the DFG tier stays;
    /// - one garbage-collection marker thread: the other cores run engines already.
    ///
    /// With two jobs on two cores this replays about 9% more sessions per second; one job takes
    /// 3.5% longer for 2.5% less CPU (Benchmarks/README.md, W6). A single long stream is about
    /// 8% slower without FTL, so `anna run` keeps the defaults.
    /// - Returns: The options that took effect, by name (empty when a context existed already
    ///   or the environment chose every one).
    @discardableResult
    public static func forManySessions() -> [String] {
        guard !engineStarted.withLock({ $0 }) else { return [] }
        var applied: [String] = []
        if set(boolean: "useFTLJIT", false) { applied.append("useFTLJIT=false") }
        if set(unsigned: "numberOfGCMarkers", 1) { applied.append("numberOfGCMarkers=1") }
        return applied
    }

    private static let engineStarted = Locked(false)

    /// Called as the first context is made: from then on the options are the engine's.
    static func noteEngineStart() {
        engineStarted.withLock { $0 = true }
    }

    private static func chosenByEnvironment(_ option: String) -> Bool {
        ProcessInfo.processInfo.environment["JSC_" + option] != nil
    }

    private static func set(boolean option: String, _ value: Bool) -> Bool {
        guard !chosenByEnvironment(option), jsc_options_set_boolean(option, value ? 1 : 0) != 0 else { return false }
        var current: Int32 = 0
        return jsc_options_get_boolean(option, &current) != 0 && (current != 0) == value
    }

    private static func set(unsigned option: String, _ value: UInt32) -> Bool {
        guard !chosenByEnvironment(option), jsc_options_set_uint(option, value) != 0 else { return false }
        var current: UInt32 = 0
        return jsc_options_get_uint(option, &current) != 0 && current == value
    }
}
