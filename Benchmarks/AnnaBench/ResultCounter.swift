import Anna
import CoreJS

/// What the delegate has seen so far.
struct ResultTally: Sendable {
    /// `{ action: 'selected', … }` results.
    var selected = 0
    /// `{ action: 'appeared', … }` results (none expected: the mix has no screen events).
    var appeared = 0
    /// `ana-updated` results: a string, or `{ action: 'updated', … }` when tagged.
    var updated = 0
    /// Anything else: a task that should not have matched did.
    var unexpected = 0
    /// The first unexpected result, as JSON text.
    var firstUnexpected: String?
    /// Errors the manager caught.
    var errors = 0
    /// The first of them.
    var firstError: String?
    /// When the result that completed the expected total reached the delegate
    /// (``MonotonicClock`` nanoseconds; 0 until then, or without an expected total).
    var lastResultAt: UInt64 = 0
    /// When the result tagged `seq` arrived, by `seq` (W4 only; 0 = not yet).
    var arrivals: [UInt64] = []

    /// All results.
    var total: Int { selected + appeared + updated + unexpected }
}

/// The benchmark's ``ManagerDelegate``: counts results by kind under a lock and notes when
/// the result that completed the expected total arrived (and, for tagged events, when each
/// one arrived).
///
/// The manager calls it on `delegateQueue`, a serial queue; the lock makes the tally safe
/// to read from the measuring task.
final class ResultCounter: ManagerDelegate {
    private let tally: Locked<ResultTally>
    private let expectedTotal: Int?
    private let timesTaggedResults: Bool

    /// A counter; `taggedCapacity` > 0 keeps arrival times for tags `0..<taggedCapacity`.
    /// With `expectedTotal`, the arrival of result number `expectedTotal` is timed (the
    /// clock is read once, not per result).
    init(taggedCapacity: Int = 0, expectedTotal: Int? = nil) {
        var initial = ResultTally()
        initial.arrivals = Array(repeating: 0, count: taggedCapacity)
        tally = Locked(initial)
        self.expectedTotal = expectedTotal
        timesTaggedResults = taggedCapacity > 0
    }

    /// A copy of the tally.
    var snapshot: ResultTally { tally.withLock { $0 } }

    func manager(_ manager: Manager, didSend result: AnalyticsResult) {
        let arrived = timesTaggedResults ? MonotonicClock.now() : 0
        let expectedTotal = expectedTotal
        tally.withLock { state in
            defer {
                if state.total == expectedTotal { state.lastResultAt = MonotonicClock.now() }
            }
            switch result.value {
            case .string:
                state.updated += 1
            case .object:
                switch result.value["action"]?.stringValue {
                case "selected"?: state.selected += 1
                case "updated"?: state.updated += 1
                case "appeared"?: state.appeared += 1
                default: state.noteUnexpected(result.value)
                }
                if let seq = result.value["seq"]?.numberValue, seq >= 0, Int(seq) < state.arrivals.count {
                    state.arrivals[Int(seq)] = arrived
                }
            default:
                state.noteUnexpected(result.value)
            }
        }
    }

    func manager(_ manager: Manager, didCatch error: any Error) {
        tally.withLock { state in
            state.errors += 1
            if state.firstError == nil { state.firstError = "\(error)" }
        }
    }

    /// Throws unless the tally is exactly `expected` and no error was reported.
    /// - Throws: ``BenchError/moduleErrors(scenario:count:first:)`` or
    ///   ``BenchError/wrongResultCount(scenario:expected:got:)``.
    func verify(_ expected: ExpectedResults, scenario: String) throws {
        let seen = snapshot
        if seen.errors > 0 {
            throw BenchError.moduleErrors(scenario: scenario, count: seen.errors, first: seen.firstError ?? "")
        }
        guard seen.selected == expected.selected, seen.updated == expected.updated, seen.appeared == 0,
            seen.unexpected == 0
        else { throw BenchError.wrongResultCount(scenario: scenario, expected: expected, got: seen) }
    }
}

extension ResultTally {
    fileprivate mutating func noteUnexpected(_ value: JSONValue) {
        unexpected += 1
        if firstUnexpected == nil { firstUnexpected = value.jsonText }
    }
}
