import Crypto

/// A UUID made from a name (RFC 9562 version 5: SHA-1 of a namespace and the name), so a
/// result's ID on the wire is the same each time it is sent: PostHog's `uuid` must be a UUID,
/// and a replayed session then repeats its IDs, which the vendor deduplicates.
enum StableUUID {
    /// Anna's namespace (itself a random UUID, fixed once).
    private static let namespace: [UInt8] = [
        0x6b, 0x2e, 0x1f, 0x4c, 0x93, 0x0a, 0x4d, 0x1e, 0xa7, 0x52, 0x3c, 0x8e, 0x0f, 0x61, 0xd2, 0x94,
    ]

    /// The UUID of `name`, lowercase and hyphenated.
    static func make(_ name: String) -> String {
        var hasher = Insecure.SHA1()
        hasher.update(data: namespace)
        hasher.update(data: Array(name.utf8))
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x50
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return [bytes[0..<4], bytes[4..<6], bytes[6..<8], bytes[8..<10], bytes[10..<16]].map(RequestSigner.hex).joined(
            separator: "-")
    }
}
