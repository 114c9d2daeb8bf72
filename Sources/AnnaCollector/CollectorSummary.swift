import CoreJS

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
        return "stored \(Plural.count(new, "new result")) (\(received) received in \(Plural.count(batches.count, "batch", plural: "batches")), "
            + "\(Plural.count(received - new, "duplicate")); \(Plural.count(requests.count, "request"))); "
            + "\(configuration.storePath) holds \(Plural.count(held, "result"))"
    }
}
