import ArgumentParser

/// The sizes of a run: `full` (the default, the figures, about 5 minutes on the
/// 2-core machine) or `quick` (the committed baseline and `make bench-check`). Every size
/// can be overridden by its own option.
enum Profile: String, CaseIterable, ExpressibleByArgument, Sendable {
    case quick, full

    /// The sizes of this profile.
    var sizes: Sizes {
        switch self {
        case .quick:
            return Sizes(
                runs: 5, w1Events: 1_000_000, w2Events: 500_000, w2Nodes: [1_000, 10_000, 100_000],
                w2Patterns: [10, 100, 1_000, 10_000], soakEvents: 2_000_000, soakChurnEvery: 10_000,
                soakSampleEvery: 1_000_000, rate: 50_000, latencySeconds: 3, destinationResults: 5_000,
                destinationRounds: 3, w1DestinationRuns: 2)
        case .full:
            return Sizes(
                runs: 5, w1Events: 1_000_000, w2Events: 1_000_000, w2Nodes: [1_000, 10_000, 100_000],
                w2Patterns: [10, 100, 1_000, 10_000], soakEvents: 10_000_000, soakChurnEvery: 10_000,
                soakSampleEvery: 1_000_000, rate: 50_000, latencySeconds: 5, destinationResults: 200_000,
                destinationRounds: 3, w1DestinationRuns: 5)
        }
    }
}

/// Every size a run uses.
struct Sizes: Sendable {
    /// Runs of W1, of each W2 variant and of W4; the median is reported.
    var runs: Int
    /// W1 events per run.
    var w1Events: Int
    /// W2 events per variant and run.
    var w2Events: Int
    /// W2 tree sizes (nodes, nominal), each with ``ScenarioRunner/w2TreePatterns`` patterns.
    var w2Nodes: [Int]
    /// W2 task-set sizes (patterns), each on a tree of ``ScenarioRunner/w2PatternNodes`` nodes.
    var w2Patterns: [Int]
    /// W3 events.
    var soakEvents: Int
    /// W3: a screen is replaced every this many events.
    var soakChurnEvery: Int
    /// W3: resident memory is sampled every this many events.
    var soakSampleEvery: Int
    /// W4 events offered per second.
    var rate: Double
    /// W4 seconds of offered events per run.
    var latencySeconds: Double
    /// `destinations`: results in the backlog flushed per format and round.
    var destinationResults: Int
    /// `destinations`: rounds (every format once per round, in a rotated order).
    var destinationRounds: Int
    /// W1's `destinations=2` variant: in how many of W1's rounds it runs (the first ones; at
    /// most `runs`), each paired with that round's `bundled` run.
    var w1DestinationRuns: Int

    /// W1 and W2: events recorded and flushed before the timed ones in each run. By then
    /// JavaScriptCore has compiled the hot paths with its optimizing tiers (which takes
    /// about a tenth of a second of CPU), so the figures are the steady state of a
    /// long-running app.
    static let throughputWarmup = 200_000
    /// W4: events recorded before the paced ones.
    static let latencyWarmup = 20_000
}
