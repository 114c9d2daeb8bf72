import Foundation

/// A progress line on standard error (`lines, results, events/s`), shown only on a terminal.
final class ProgressReporter {
    private let enabled: Bool
    private let start = Date()
    private var lastShown = Date.distantPast
    private var shownOnce = false

    init(enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.enabled = enabled
    }

    /// Updates the line at most four times a second.
    func update(lines: Int, events: Int, results: Int) {
        guard enabled, lines % 256 == 0 else { return }
        let now = Date()
        guard now.timeIntervalSince(lastShown) >= 0.25 else { return }
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
