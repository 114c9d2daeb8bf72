import Crypto

/// The optional signature of a request's body: `X-Anna-Signature: sha256=<hex>`, the
/// HMAC-SHA256 of the body as sent (after compression) with a secret the receiver shares,
/// as GitHub and Stripe sign their webhooks.
enum RequestSigner {
    /// The header's name.
    static let header = "X-Anna-Signature"

    /// The header's value for `body` signed with `secret`.
    static func signature(of body: [UInt8], secret: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(secret.utf8)))
        return "sha256=" + hex(Array(code))
    }

    /// `bytes` in lowercase hexadecimal.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }
}
