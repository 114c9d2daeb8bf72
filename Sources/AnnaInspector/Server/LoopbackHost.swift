#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which names and addresses are the loopback interface: `localhost`, the IPv4 literals of
/// 127.0.0.0/8 (four decimal parts, as `inet_pton` reads them) and the IPv6 literal `::1`.
/// A DNS name that merely starts with `127.` (`127.0.0.1.nip.io`) is not one.
public enum LoopbackHost {
    /// Whether `name` (an address to listen on, or a `Host` header without its port) is the
    /// loopback interface.
    public static func isLoopback(_ name: String) -> Bool {
        if name.lowercased() == "localhost" { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, name, &ipv4) == 1 {
            return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, name, &ipv6) == 1 {
            return withUnsafeBytes(of: &ipv6) { Array($0) } == [UInt8](repeating: 0, count: 15) + [1]
        }
        return false
    }

    /// Whether a `Host` header (`127.0.0.1:8040`, `[::1]:8040`, `localhost`) names the loopback
    /// interface: the name before an optional `:port` (digits only) is one of ``isLoopback(_:)``,
    /// an IPv6 literal in brackets.
    static func isLoopbackAuthority(_ authority: String) -> Bool {
        let name: Substring
        let rest: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            name = authority[authority.index(after: authority.startIndex)..<close]
            rest = authority[authority.index(after: close)...]
        } else if let colon = authority.firstIndex(of: ":") {
            name = authority[..<colon]
            rest = authority[colon...]
        } else {
            name = authority[...]
            rest = ""
        }
        if !rest.isEmpty {
            let port = rest.dropFirst()
            guard rest.first == ":", !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        }
        // A bracketed name must be IPv6, an unbracketed one must not be.
        guard authority.hasPrefix("[") == name.contains(":") else { return false }
        return isLoopback(String(name))
    }
}
