/// Counts in messages: `1 problem`, `2 problems`.
enum Plural {
    /// `number` and `noun`, with `plural` (or `noun` + `s`) unless `number` is 1.
    static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
    }
}
