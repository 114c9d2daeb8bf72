/// A share of the session list for one of `count` processes: `--shard index/count`.
///
/// A session belongs to shard `hash(name) mod count`, where `hash` is 64-bit FNV-1a of the
/// session name's UTF-8 bytes. It depends on the name alone, not on the list or its order:
/// shards that see lists made at different times, or from differently mounted paths, still
/// never overlap and never miss a session both lists hold. Shares are even on average
/// (each about `1/count`, within a few percent for a thousand sessions).
struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// From 0 to `count - 1` (the Kubernetes completion index).
    let index: Int
    let count: Int

    /// The environment variable `--shard-from-env` reads: Kubernetes sets it in each pod of
    /// an Indexed Job.
    static let environmentVariable = "JOB_COMPLETION_INDEX"

    /// Parses `i/N` (0 ≤ i < N); `nil` otherwise.
    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    /// `nil` unless 0 ≤ `index` < `count`.
    init?(index: Int, count: Int) {
        guard count >= 1, index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    var description: String { "\(index)/\(count)" }

    /// Whether `session` is this shard's.
    func contains(_ session: SessionFile) -> Bool {
        Int(Self.hash(session.name) % UInt64(count)) == index
    }

    /// 64-bit FNV-1a of the UTF-8 bytes of `name`.
    static func hash(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
