/// Counts in messages, with the noun in the singular for exactly one: `1 result`, `2 results`,
/// `0 results`, `1 entry`, `2 entries`.
public enum Plural {
    /// `number`, a space and `noun` when `number` is 1; otherwise `number` and `plural`, or
    /// `noun` + `s` when no `plural` is given (pass it for `entry`/`entries`, `batch`/`batches`).
    public static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
    }
}
