import Foundation

/// SplitMix64: a small, fast generator whose whole state is one number, so that a seed
/// repeats a run exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next number.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// The fuzz run's settings: `ANNA_FUZZ_SEED` (decimal or 0x-hex) and `ANNA_FUZZ_CASES`.
public struct FuzzSettings: CustomStringConvertible, Sendable {
    /// The seed when ANNA_FUZZ_SEED is not set.
    public static let defaultSeed: UInt64 = 0x5EED_A11A
    /// The cases when ANNA_FUZZ_CASES is not set.
    public static let defaultCases = 400

    /// The seed of this run.
    public let seed: UInt64
    /// How many cases this run generates.
    public let cases: Int

    /// The settings of this process.
    public static let current: FuzzSettings = {
        let environment = ProcessInfo.processInfo.environment
        let seedText = environment["ANNA_FUZZ_SEED"] ?? ""
        let seed = seedText.hasPrefix("0x") ? UInt64(seedText.dropFirst(2), radix: 16) : UInt64(seedText)
        let settings = FuzzSettings(seed: seed ?? defaultSeed, cases: environment["ANNA_FUZZ_CASES"].flatMap { Int($0) } ?? defaultCases)
        print("fuzz: \(settings)")
        return settings
    }()

    /// How to repeat the run.
    public var description: String { "ANNA_FUZZ_SEED=\(seed) ANNA_FUZZ_CASES=\(cases)" }

    /// The generator of case `number` (`stream` keeps the parse cases apart from the file cases):
    /// every case has its own, so one case repeats without the ones before it.
    public func random(case number: Int, stream: UInt64) -> SplitMix64 {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        for _ in 0..<(number % 7) { _ = mixer.next() }
        return SplitMix64(seed: mixer.next() &+ UInt64(number) &* 0x9E37_79B9_7F4A_7C15)
    }
}
