extension Collector {
    /// What this run stored, for the line `anna collect` prints when it stops: `stored 12 new
    /// results (15 received in 3 batches, 3 duplicates; 4 requests); c.sqlite holds 40 results`.
    /// - Throws: what counting the store's rows threw.
    public func runSummary() throws -> String {
        let requests = self.requests
        let batches = requests.filter { $0.status == 200 }
        let received = batches.reduce(0) { $0 + $1.count }
        let new = batches.reduce(0) { $0 + $1.new }
        let held = try store.count()
        return "stored \(counted(new, "new result")) (\(received) received in \(counted(batches.count, "batch")), "
            + "\(counted(received - new, "duplicate")); \(counted(requests.count, "request"))); "
            + "\(configuration.storePath) holds \(counted(held, "result"))"
    }
}

/// `1 result`, `2 results`, `1 batch`, `2 batches`.
func counted(_ count: Int, _ noun: String) -> String {
    guard count != 1 else { return "\(count) \(noun)" }
    return "\(count) \(noun)\(noun.hasSuffix("ch") ? "es" : "s")"
}
