import Foundation

/// A progress line on standard error (`lines, results, events/s`), shown only on a terminal.
final class ProgressReporter {
    private let enabled: Bool
    private let interval: TimeInterval
    private let start = Date()
    private var lastShown = Date.distantPast
    private var shownOnce = false

    /// Shows progress when standard error is a terminal, every `interval` seconds (the
    /// environment variable `ANNA_PROGRESS_INTERVAL` overrides the default of 0.25 s).
    init(
        enabled: Bool = isatty(STDERR_FILENO) == 1,
        interval: TimeInterval = ProcessInfo.processInfo.environment["ANNA_PROGRESS_INTERVAL"].flatMap(Double.init) ?? 0.25
    ) {
        self.enabled = enabled
        self.interval = interval
    }

    /// Updates the line at most once per interval (checking the clock every 256 lines).
    func update(lines: Int, events: Int, results: Int) {
        guard enabled, lines % 256 == 0 else { return }
        let now = Date()
        guard now.timeIntervalSince(lastShown) >= interval else { return }
        lastShown = now
        shownOnce = true
        let rate = Double(events) / max(now.timeIntervalSince(start), 0.001)
        FileHandle.standardError.write(Data("\r\u{1B}[K\(lines) lines, \(results) results, \(Int(rate)) events/s".utf8))
    }

    /// Clears the line before the final output.
    func finish() {
        guard enabled, shownOnce else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
