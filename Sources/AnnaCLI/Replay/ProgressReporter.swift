import CoreJS
import Foundation

/// A progress line on standard error (`lines, results, events/s`), shown only on a terminal.
///
/// Everything else a replay writes to standard error (its messages, and console output of
/// tasks when the reporter is their sink) goes through ``write(_:)``, which clears the line
/// first, so nothing lands glued to it.
final class ProgressReporter: OutputSink {
    private let enabled: Bool
    /// Standard error, as it was when the reporter was made (workers write from threads of their own).
    private let standardError = StandardStreams.current.error
    private let interval: TimeInterval
    private let start = Date()
    /// When the line was last drawn, and whether it is on the screen now.
    private let state = Locked((lastShown: Date.distantPast, showing: false))

    /// Shows progress when standard error is a terminal, every `interval` seconds (the
    /// environment variable `ANNA_PROGRESS_INTERVAL` overrides the default of 0.25 s).
    init(
        enabled: Bool = StandardStreams.current.error.isTerminal,
        interval: TimeInterval = ProcessInfo.processInfo.environment["ANNA_PROGRESS_INTERVAL"].flatMap(Double.init) ?? 0.25
    ) {
        self.enabled = enabled
        self.interval = interval
    }

    /// Redraws the line, at most once per interval.
    func update(lines: Int, events: Int, results: Int) {
        guard enabled else { return }
        let now = Date()
        state.withLock { state in
            guard now.timeIntervalSince(state.lastShown) >= interval else { return }
            state.lastShown = now
            state.showing = true
            let rate = Double(events) / max(now.timeIntervalSince(start), 0.001)
            standardError.write(
                "\r\u{1B}[K\(Plural.count(lines, "line")), \(Plural.count(results, "result")), \(Int(rate)) events/s")
        }
    }

    /// Clears the line, if it is shown (the next ``update(lines:events:results:)`` draws it again).
    func clear() {
        write("")
    }

    /// Writes `text` to standard error, after clearing the line if it is shown.
    func write(_ text: String) {
        state.withLock { state in
            let output = (state.showing ? "\r\u{1B}[K" : "") + text
            state.showing = false
            if !output.isEmpty { standardError.write(output) }
        }
    }

    /// Writes `line` and a line break to standard error, on a line of its own.
    func writeLine(_ line: String) {
        write(line + "\n")
    }
}
