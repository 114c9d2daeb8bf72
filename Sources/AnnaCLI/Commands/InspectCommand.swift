import Anna
import AnnaInspector
import ArgumentParser
import CoreJS
import Foundation

/// `anna inspect`: replays or follows an event stream and serves the inspector page on it.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Replay or follow an event stream and serve a page that shows the engine live.",
        discussion: """
            Prints the page's URL on standard output, then serves until SIGINT or SIGTERM.
            The page shows the focus tree, tasks per file, the last 500 results, errors,
            figures and switches; for the stream: play, pause, step one line, jump to line N.
            A file is followed after its end as tail -F follows one (lines appended later are
            handled as they come; a file truncated in place, as logrotate's copytruncate does,
            or replaced by a new one is read again from its start, said once on standard
            error); --no-follow stops reading at the end. The JSON API behind the page is described
            in docs/inspector.md.

            It listens on 127.0.0.1 and answers only requests whose Host is 127.0.0.1 (any
            address of 127.0.0.0/8), [::1] or localhost. Listening on another address needs
            --token, which every request but those for the page's files must then carry
            (Authorization: Bearer T, or ?token=T); an empty token is refused. Writes need
            Content-Type: application/json (else 415).

            A connection that has not sent a whole request head within --idle-timeout seconds
            (of opening, or of its last answer), or sends nothing for that long mid-body, is
            closed. At most --max-connections are served at once (default: half the file
            descriptors beyond 64 of ulimit -n, 8 to 1024); more wait until one closes.

            Examples:
              anna inspect --events session.ndjson --module analytics
              anna inspect --events session.ndjson --tasks analytics/task --port 8040 --paused
              tail -f app.ndjson | anna inspect --events - --module analytics
              anna inspect --events s.ndjson --module m --host 0.0.0.0 --token "$(openssl rand -hex 16)"
            """)

    @Option(help: ArgumentHelp("The event stream (NDJSON), or - for standard input.", valueName: "file")) var events: String
    @OptionGroup var module: ModuleOptions
    @Option(help: "The port to listen on (0: any free port).") var port = 0
    @Option(help: "The address to listen on; another than loopback needs --token.") var host = "127.0.0.1"
    @Option(help: "The token API requests must carry (required beyond loopback).") var token: String?
    @Option(name: .customLong("idle-timeout"), help: "Close a connection silent this many seconds mid-request.") var idleTimeout = 10.0
    @Option(name: .customLong("max-connections"), help: "Serve at most this many connections at once.") var maximumConnections: Int?
    @Flag(help: "Start paused at line 0 (play, step or jump from the page).") var paused = false
    @Flag(name: .customLong("no-follow"), help: "Stop reading a file at its end.") var noFollow = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        if token?.isEmpty == true {
            throw ValidationError("--token is empty: give a non-empty token (e.g. \"$(openssl rand -hex 16)\"), or leave --token out on 127.0.0.1")
        }
        if !LoopbackHost.isLoopback(host), token == nil {
            throw ValidationError(
                "listening on \(host) (beyond 127.0.0.1) needs --token T: anyone who can reach the port could read and switch the engine")
        }
        guard idleTimeout.isFinite, idleTimeout > 0, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout must be a number of seconds above 0, at most 86400")
        }
        if let maximumConnections, maximumConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
    }

    func run() throws {
        let source: StreamSource = events == "-" ? .standardInput : .file(path: events, follow: !noFollow)
        if case let .file(path, _) = source, !FileManager.default.fileExists(atPath: path) {
            throw CommandFailure("anna: no such event stream: \(path)", exitCode: ExitCodes.noInput)
        }
        var configuration = InspectorConfiguration(host: host, port: port, token: token)
        configuration.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        configuration.maximumConnections = maximumConnections
        configuration.onConnectionCapReached = { cap in
            printError(
                "anna inspect: \(Plural.count(cap, "connection")) open, the most served at once (--max-connections); new ones wait until one closes")
        }
        let session = try Self.makeSession(source: source, module: module, playing: !paused, configuration: configuration)
        try runBlocking {
            let server = try await session.inspector.start()
            printOutput(server.url.absoluteString)
            printError("anna inspect: serving \(source.name) on \(server.url.absoluteString) (Ctrl-C stops)")
            await InspectorServer.waitForTerminationSignal()
            session.stop()
            try await server.stop()
        }
    }

    /// A started session over `source` (exits with 66 when the module cannot be loaded).
    static func makeSession(
        source: StreamSource, module: ModuleOptions, playing: Bool, configuration: InspectorConfiguration
    ) throws -> StreamSession {
        let console = Console(output: StandardStreams.current.error)
        // Loaded once here, so a module that cannot load stops the command with its message and hint.
        _ = try module.loadEngine(console: console)
        let engineConfiguration = try module.engineConfiguration(console: console)
        let session = StreamSession(
            source: source, debug: module.debug, playing: playing, inspector: configuration,
            notice: { printError("anna inspect: \($0)") },
            makeEngine: { try AnalyticsEngine(configuration: engineConfiguration) })
        try session.start()
        return session
    }
}
