import HTTPTypes
import Hummingbird

/// Guards every request: the token (when there is one) for the API, the `Host` header on a
/// loopback server without a token (so a web page elsewhere cannot reach it through a DNS
/// name of its own), JSON bodies for writes (a cross-site form cannot send them), and the
/// Content-Security-Policy and other headers on every answer.
struct InspectorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The page's policy: its own scripts, styles and API only; no frames, no forms, no inline code.
    static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    let token: String?
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
        if loopbackOnly, let host = request.head.authority {
            let name = host.hasPrefix("[") ? String(host.prefix { $0 != "]" }.dropFirst()) : String(host.prefix { $0 != ":" })
            guard name == "localhost" || name.hasPrefix("127.") || name == "::1" else {
                return InspectorRoutes.problem(.forbidden, "this inspector answers requests to 127.0.0.1 and localhost only")
            }
        }
        guard request.uri.path.hasPrefix("/api/") else { return nil }  // the page's files hold no data
        if let token {
            let bearer = request.headers[.authorization].map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : "" }
            let given = bearer ?? request.uri.queryParameters.get("token")
            guard given == token else {
                return InspectorRoutes.problem(.unauthorized, "this inspector needs its token: Authorization: Bearer T, or ?token=T")
            }
        }
        if request.method == .post, request.headers[.contentType]?.hasPrefix("application/json") != true {
            return InspectorRoutes.problem(.unsupportedMediaType, "send writes with Content-Type: application/json")
        }
        return nil
    }
}
