import Anna
import CoreJS

/// The W1 event mix, used by every scenario.
///
/// Event `k` goes to cell `k mod C` (cell `c` is cell `c mod 20` of screen `c / 20`), where
/// `C` is ``cells`` (W1's `k mod 1000`) or fewer when the tree has fewer; W2's `cells=all`
/// variants use every cell of the tree. By `k mod 4`, event `k` is: `did-select`;
/// `ana-appeared`; `ana-updated` with key-path `text` and value `'v' + (k mod 8)`; `scroll`
/// with `{ x: k }`. Each event goes through the public ``Analyzing`` API, exactly as a host
/// would record it.
enum EventMix {
    /// The cells W1's events go to: event `k` to cell `k mod 1000`.
    static let cells = 1_000

    /// What event `k` is.
    enum Kind: Int {
        case select, appeared, updated, scroll
    }

    /// The kind of event `k`.
    static func kind(of k: Int) -> Kind {
        switch k & 3 {
        case 0: return .select
        case 1: return .appeared
        case 2: return .updated
        default: return .scroll
        }
    }

    /// The `ana-updated` values, made once so the loop measures the library, not `"v\(k)"`.
    static let values: [String] = (0..<8).map { "v\($0)" }

    /// Records event `k` on `analyzer`.
    @inline(__always)
    static func record(_ k: Int, on analyzer: any Analyzing) {
        switch kind(of: k) {
        case .select: analyzer.record("did-select", with: nil)
        case .appeared: analyzer.record("ana-appeared", with: nil)
        case .updated: analyzer.update(values[k & 7], for: "text")
        case .scroll: analyzer.record("scroll", with: ["x": .number(Double(k))])
        }
    }

    /// Records event `k` tagged with `seq` in its properties (W4: the tasks return it).
    ///
    /// `update(_:for:)` takes no extra properties, so the tagged `ana-updated` is recorded
    /// with `record(_:with:)` and the same `key-path` and `value` that `update` sends.
    static func recordTagged(_ k: Int, seq: Int, on analyzer: any Analyzing) {
        let tag = JSONValue.number(Double(seq))
        switch kind(of: k) {
        case .select: analyzer.record("did-select", with: ["seq": tag])
        case .appeared: analyzer.record("ana-appeared", with: ["seq": tag])
        case .updated: analyzer.record("ana-updated", with: ["key-path": "text", "value": .string(values[k & 7]), "seq": tag])
        case .scroll: analyzer.record("scroll", with: ["x": .number(Double(k)), "seq": tag])
        }
    }

    /// The results the benchmark's task sets give for events `0..<events` on cells.
    ///
    /// Each `did-select` on a cell matches exactly one task (its screen's, or the scale
    /// set's `list/cell/did-select`): one result. `ana-appeared` tasks name screens, not
    /// cells: none. Each `ana-updated` returns `latestValue('text')`, never undefined once
    /// the event itself set it: one result. `scroll` has no task: none.
    static func expectedResults(events: Int) -> ExpectedResults {
        ExpectedResults(selected: count(events, Kind.select.rawValue), updated: count(events, Kind.updated.rawValue))
    }

    /// How many `k` in `0..<events` have `k mod 4 == remainder`.
    private static func count(_ events: Int, _ remainder: Int) -> Int {
        events > remainder ? (events - remainder + 3) / 4 : 0
    }
}

/// The results a run must produce, by kind.
struct ExpectedResults: Equatable, Sendable {
    /// `did-select` results (`{ action: 'selected', … }`).
    var selected: Int
    /// `ana-updated` results (the latest `text`).
    var updated: Int
    /// All of them.
    var total: Int { selected + updated }

    /// The results of two runs together.
    static func + (first: ExpectedResults, second: ExpectedResults) -> ExpectedResults {
        ExpectedResults(selected: first.selected + second.selected, updated: first.updated + second.updated)
    }
}
