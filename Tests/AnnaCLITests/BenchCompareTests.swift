import AnnaTestSupport
import Foundation
import Testing

/// `anna-bench compare`, the regression guard of `make bench-check`: rates and CPU times are
/// compared at the current machine speed where both lines carry the machine gauge.
@Suite("anna-bench compare", .timeLimit(.minutes(2)))
struct BenchCompareTests {
    /// A W1 line: `eventsPerSecond` guarded, the machine gauge when given.
    private static func w1(_ rate: Int, gauge: Double?) -> String {
        let gaugeField = gauge.map { #","calibrationMs":\#($0)"# } ?? ""
        return #"{"scenario":"W1","variant":"bundled","eventsPerSecond":\#(rate),"guard":["eventsPerSecond"]\#(gaugeField)}"#
    }

    /// A W1 outbox line whose guarded ratio must not be scaled.
    private static func outbox(_ ratio: Double, gauge: Double) -> String {
        #"{"scenario":"W1","variant":"outbox","relativeToBundled":\#(ratio),"calibrationMs":\#(gauge),"guard":["relativeToBundled"]}"#
    }

    private func compare(baseline: [String], current: [String], _ extra: [String] = []) async throws -> ChildProcess.Output {
        let folder = try TemporaryFolder([
            "baseline.json": baseline.joined(separator: "\n") + "\n", "current.json": current.joined(separator: "\n") + "\n",
        ])
        return try await ChildProcess.run(
            executable: BuildProducts.executable("anna-bench"),
            arguments: ["compare", "--baseline", folder.file("baseline.json"), "--current", folder.file("current.json")] + extra,
            timeout: 60)
    }

    @Test("a rate that fell as far as the machine gauge rose passes; as measured, it fails")
    func scalesRatesByTheGauge() async throws {
        let baseline = [Self.w1(2_000_000, gauge: 25)]
        let current = [Self.w1(1_000_000, gauge: 50)]
        let scaled = try await compare(baseline: baseline, current: current)
        #expect(scaled.status == 0, "\(scaled.stdout)\(scaled.stderr)")
        #expect(scaled.stdout.contains("1,000,000 at the current machine speed, gauge ×2.00"), "\(scaled.stdout)")
        #expect(scaled.stdout.contains("0 worse"), "\(scaled.stdout)")
        let raw = try await compare(baseline: baseline, current: current, ["--ignore-gauge"])
        #expect(raw.status == 1, "\(raw.stdout)")
        #expect(raw.stdout.contains("WORSE"), "\(raw.stdout)")
        #expect(raw.stdout.contains("compared as measured (--ignore-gauge)"), "\(raw.stdout)")
    }

    @Test("a rate that fell further than the gauge rose still fails")
    func failsBeyondTheGauge() async throws {
        let output = try await compare(baseline: [Self.w1(2_000_000, gauge: 25)], current: [Self.w1(600_000, gauge: 50)])
        #expect(output.status == 1, "\(output.stdout)")
        // 1,000,000 expected at the current speed: 600,000 is 40% below it, past the 30% tolerance.
        #expect(output.stdout.contains("-40.0%; limit 700,000) WORSE"), "\(output.stdout)")
    }

    @Test("a faster machine raises the bar")
    func fasterMachineIsStricter() async throws {
        let output = try await compare(baseline: [Self.w1(2_000_000, gauge: 50)], current: [Self.w1(2_000_000, gauge: 25)])
        #expect(output.status == 1, "\(output.stdout)")
        #expect(output.stdout.contains("4,000,000 at the current machine speed, gauge ×0.50"), "\(output.stdout)")
    }

    @Test("lines without a gauge on both sides, and ratios, are compared as measured")
    func unscaledFigures() async throws {
        let missing = try await compare(baseline: [Self.w1(2_000_000, gauge: nil)], current: [Self.w1(1_000_000, gauge: 50)])
        #expect(missing.status == 1, "\(missing.stdout)")
        #expect(missing.stdout.contains("no machine gauge on both lines: compared as measured"), "\(missing.stdout)")
        let ratio = try await compare(baseline: [Self.outbox(0.8, gauge: 25)], current: [Self.outbox(0.5, gauge: 50)])
        #expect(ratio.status == 1, "\(ratio.stdout)")
        #expect(!ratio.stdout.contains("machine speed"), "\(ratio.stdout)")
        #expect(ratio.stdout.contains("relativeToBundled: baseline 0.8, current 0.5"), "\(ratio.stdout)")
    }
}
