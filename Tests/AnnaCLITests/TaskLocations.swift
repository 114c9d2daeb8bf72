import Foundation

/// `line` without the task's location after its pattern (` (/abs/task/index.js:3:6)`) and
/// where a task threw (` (thrown at …)`): tests of other features need not follow the
/// columns the core chooses (CoverageWatchTests checks the locations).
func withoutTaskLocations(_ line: String) -> String {
    line.replacing(#/ \(thrown at [^)]*\)/#, with: "")
        .replacing(#/(task '[^']*') \([^)]*\)/#) { "\($0.output.1)" }
}
