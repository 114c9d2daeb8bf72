import Anna
import CoreJS
import Foundation

/// One self-contained HTML file of a session (the inspector page with its data inlined, its
/// CSS and JavaScript inlined too): opened from disk, offline, it shows the views frozen at
/// the end, a timeline of events, results and errors over the stream, and trace results.
public enum SessionReport {
    /// The report's policy: only the inline style and scripts it carries; nothing fetched.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

    /// The report of `session` as it is now (wait for ``StreamSession/waitUntilHandled()`` first).
    /// - Parameters:
    ///   - session: The session shown, as far as it was handled.
    ///   - trace: The trace check's text (`anna trace`'s output), shown in a panel of its own.
    ///   - screens: Screenshots of the session, shown on the timeline at their events' lines.
    ///   - written: The time the report says it was written.
    /// - Throws: what reading the engine's state or the page's files threw.
    public static func html(
        of session: StreamSession, trace: String? = nil, screens: ReportScreens? = nil, written: Date = Date()
    ) async throws -> String {
        let inspector = session.inspector
        let snapshotText = try await session.snapshot(format: .json)
        let snapshot = try JSONValue(parsing: snapshotText)
        let results = inspector.resultsJSON()
        let data: JSONValue = .fields([
            "source": .string(session.source.name), "written": .string(ISO8601DateFormatter().string(from: written)),
            "state": try await inspector.stateJSON(), "tree": snapshot, "markup": .string(try await session.snapshot(format: .markup)),
            "dot": .string(try DotRenderer.render(snapshotJSON: snapshotText)), "tasks": try await inspector.tasksJSON(),
            "results": results["results"] ?? [], "errors": inspector.errorsJSON(after: 0)["errors"] ?? [],
            "stats": await FiguresMeter(inspector: inspector).figures(), "timeline": inspector.state.read().timeline.json,
            "namespaces": inspector.namespacesJSON(), "trace": trace.json, "screens": screens?.json ?? .null,
        ])
        return try page(inlining: data)
    }

    /// The page with its CSS, its script and `data` inlined.
    static func page(inlining data: JSONValue) throws -> String {
        let css = try PageFiles.read("inspector.css")
        let script = try PageFiles.read("inspector.js")
        guard !css.lowercased().contains("</style"), !script.lowercased().contains("</script") else {
            throw PageFileError(file: "inspector.js", reason: "it cannot be inlined (it contains a closing tag)")
        }
        // `<` appears in JSON text only inside strings, where \u003c means the same: no `</script>` can end the block.
        let dataText = data.jsonText.replacingOccurrences(of: "<", with: "\\u003c")
        var html = try PageFiles.read("inspector.html")
        html = try replacing(#"<link rel="stylesheet" href="inspector.css">"#, in: html, with: "<style>\n\(css)</style>")
        html = try replacing(
            #"<script src="inspector.js"></script>"#, in: html,
            with: "<script type=\"application/json\" id=\"anna-report-data\">\(dataText)</script>\n<script>\n\(script)</script>")
        html = try replacing(
            #"<meta charset="utf-8">"#, in: html,
            with: "<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"\(contentSecurityPolicy)\">")
        return html.replacingOccurrences(of: "<title>Anna inspector</title>", with: "<title>Anna session report</title>")
    }

    private static func replacing(_ marker: String, in html: String, with replacement: String) throws -> String {
        guard let range = html.range(of: marker) else {
            throw PageFileError(file: "inspector.html", reason: "it lacks \(marker)")
        }
        return html.replacingCharacters(in: range, with: replacement)
    }
}
