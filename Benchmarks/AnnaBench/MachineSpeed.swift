import BenchStats
import CoreJS
import Foundation

/// How fast the machine is right now: a fixed workload that uses nothing of Anna.
///
/// The 2-core machine is a virtual machine whose speed drifts by tens of percent over
/// minutes without any process of its own being busy (the host's other guests). A figure
/// that moved together with this gauge moved with the machine, not with the code.
///
/// The workload is a JavaScript loop in a fresh JavaScriptCore context (object creation,
/// property access, string keys, a `Map`: what the core does per event, minus the core),
/// evaluated with one call, plus a Swift loop of dictionary updates. The best of a few
/// repetitions is taken, in milliseconds.
enum MachineSpeed {
    private static let script = """
        (function () {
          const seen = new Map();
          let total = 0;
          for (let i = 0; i < 300000; i++) {
            const event = { name: 'e' + (i & 7), x: i, properties: { value: i & 15 } };
            const slot = seen.get(event.name);
            if (slot === undefined) seen.set(event.name, { count: 1, last: event });
            else { slot.count += 1; slot.last = event; }
            total += event.properties.value;
          }
          return total;
        })()
        """

    /// A line's `calibrationMs`: the median of the gauges timed before each of its runs.
    static func field(_ samples: [Double]) -> JSONValue {
        .rounded(Stats.median(samples), 2)
    }

    /// Milliseconds of the workload: the best of `repetitions`.
    static func calibrate(repetitions: Int = 3) -> Double {
        var best = Double.infinity
        for _ in 0..<repetitions {
            let start = MonotonicClock.now()
            let context = JavaScriptContext()
            _ = try? context.evaluate(script, sourceURL: "anna-bench-calibration.js")
            var counts: [Int: Int] = [:]
            for i in 0..<200_000 { counts[i & 1023, default: 0] += i & 15 }
            withExtendedLifetime(counts) {}
            best = min(best, MonotonicClock.seconds(from: start, to: MonotonicClock.now()) * 1000)
        }
        return best
    }
}
