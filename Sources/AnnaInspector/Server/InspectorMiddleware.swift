import Foundation
import HTTPTypes
import Hummingbird

/// Guards every request, before any route sees it: the `Host` header on a loopback server (so a
/// web page elsewhere cannot reach the inspector through a DNS name of its own), the token
/// (when there is one) on everything but the page's files, a JSON body type on every write
/// (a cross-site form or `no-cors` fetch cannot send one), and the Content-Security-Policy and
/// other headers on every answer.
///
/// The path is compared as the router reads it (split at `/`, empty parts dropped), so
/// `//api/state` or `/api//state` are guarded as `/api/state` is; any path that is not one of the
/// page's files needs the token, so no spelling the router might accept can pass without it.
struct InspectorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The page's policy: its own scripts, styles and API only; no frames, no forms, no inline code.
    static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// The page's files, as path components: they hold no data and are served without the token.
    static var pageFiles: Set<[Substring]> { [[], ["index.html"], ["inspector.css"], ["inspector.js"]] }

    let token: String?
    /// Whether the server listens on the loopback interface (then the `Host` must name it).
    let loopbackOnly: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if let refusal = refusal(of: request) {
            response = refusal
        } else {
            response = try await next(request, context)
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.cacheControl] = "no-store"
        return response
    }

    private func refusal(of request: Request) -> Response? {
        if loopbackOnly, let host = request.head.authority, !LoopbackHost.isLoopbackAuthority(host) {
            return InspectorRoutes.problem(.forbidden, "this inspector answers requests to 127.0.0.1, [::1] and localhost only")
        }
        let components = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        if let token, !Self.pageFiles.contains(components) {
            let bearer = request.headers[.authorization].map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : "" }
            let given = bearer ?? request.uri.queryParameters.get("token")
            guard let given, Self.same(given, token) else {
                return InspectorRoutes.problem(.unauthorized, "this inspector needs its token: Authorization: Bearer T, or ?token=T")
            }
        }
        if !Self.isRead(request.method), !Self.isJSON(request.headers[.contentType]) {
            return InspectorRoutes.problem(.unsupportedMediaType, "send writes with Content-Type: application/json")
        }
        return nil
    }

    /// Whether `given` is `token`, in a time that does not depend on where they differ.
    static func same(_ given: String, _ token: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(token.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<b.count { difference |= (index < a.count ? a[index] : 0) ^ b[index] }
        return difference == 0
    }

    /// Methods that change nothing; every other one is a write.
    static func isRead(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options
    }

    /// Whether a `Content-Type` is `application/json` (any case, parameters after `;` allowed).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return media.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }
}
